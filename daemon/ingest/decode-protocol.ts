import type { WireFormat } from "../otlp/decode-request.js";

export type Signal = "traces" | "logs";

/** Main thread to decoder: one request body, its ArrayBuffer transferred (not copied). */
export interface DecodeRequest {
  id: number;
  signal: Signal;
  format: WireFormat;
  body: ArrayBuffer;
  receivedNs: bigint;
}

/** Decoder to main thread, for requests that never reach the writer. */
export type DecodeReply =
  | { type: "invalid"; id: number; message: string }
  | { type: "empty"; id: number }
  | { type: "error"; id: number; message: string };

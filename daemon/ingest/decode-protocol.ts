import type { WireFormat } from "../otlp/decode-request.js";
import type { SignalName } from "../signals/registry.js";

/** Main thread to decoder: one request body, its ArrayBuffer transferred (not copied). */
export interface DecodeRequest {
  id: number;
  /** The most values the body may decode to (decode-allowance.ts). */
  maxValues: number;
  signal: SignalName;
  format: WireFormat;
  body: ArrayBuffer;
  receivedNs: bigint;
}

/** Decoder to main thread, for requests that never reach the writer. */
export type DecodeReply =
  | { type: "invalid"; id: number; message: string }
  | { type: "empty"; id: number }
  /** Past its allowance: nothing of it was handed to the writer. */
  | { type: "too-many-values"; id: number; limit: number }
  /** Handed to the writer; `values` is what it decoded to, for the pipeline's budget. */
  | { type: "decoded"; id: number; values: number }
  | { type: "error"; id: number; message: string };

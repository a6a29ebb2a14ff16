/**
 * The decoder thread: turns OTLP request bodies into records and hands them straight to the
 * writer thread, so the main thread only speaks HTTP and stays responsive under load.
 */
import { type MessagePort, parentPort, workerData } from "node:worker_threads";
import { decodeLogRequest, decodeTraceRequest, type WireFormat } from "../otlp/decode-request.js";
import { decodeTraceJsonNatively } from "../otlp/native-json-traces.js";
import { PayloadError } from "../otlp/payload-error.js";
import { type PackedSpanBatch, packedSpanCount, packLogs, packSpans } from "../store/packed-batch.js";
import type { WriteRequest } from "../store/writer-protocol.js";
import type { DecodeReply, DecodeRequest } from "./decode-protocol.js";

if (!parentPort) throw new Error("decode-worker must run as a worker thread");
const port = parentPort;
const { writer } = workerData as { writer: MessagePort };

function reply(message: DecodeReply): void {
  port.postMessage(message);
}

/** A trace request's packed spans: OTLP/JSON natively where it can, else the JavaScript decoders. */
function packedTraces(body: Buffer, format: WireFormat): PackedSpanBatch {
  return (format === "json" ? decodeTraceJsonNatively(body) : undefined) ?? packSpans(decodeTraceRequest(body, format));
}

port.on("message", (request: DecodeRequest) => {
  const body = Buffer.from(request.body);
  try {
    let write: WriteRequest;
    if (request.signal === "traces") {
      const batch = packedTraces(body, request.format);
      if (packedSpanCount(batch) === 0) return reply({ type: "empty", id: request.id });
      write = { type: "spans", id: request.id, batch, receivedNs: request.receivedNs };
    } else {
      const batch = decodeLogRequest(body, request.format);
      if (batch.logs.length === 0) return reply({ type: "empty", id: request.id });
      write = { type: "logs", id: request.id, batch: packLogs(batch), receivedNs: request.receivedNs };
    }
    writer.postMessage(write);
  } catch (error) {
    if (error instanceof PayloadError) reply({ type: "invalid", id: request.id, message: error.message });
    else reply({ type: "error", id: request.id, message: (error as Error).message });
  }
});

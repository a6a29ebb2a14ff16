/**
 * The decoder thread: turns OTLP request bodies into records and hands them straight to the
 * writer thread, so the main thread only speaks HTTP and stays responsive under load.
 */
import { type MessagePort, parentPort, workerData } from "node:worker_threads";
import {
  chargeDecoded,
  countJsonObjects,
  decodeWithin,
  JSON_OBJECTS_PER_VALUE,
  RECORD_UNITS,
  TooManyValuesError,
} from "../otlp/decode-allowance.js";
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

/**
 * A trace request's packed spans: OTLP/JSON natively where it can, else the JavaScript
 * decoders. The native decoder reads the whole body in one call, so its spans and index
 * entries are charged after it (a large body's objects were counted before, in `decode`); the
 * JavaScript decoders charge as they go.
 */
function packedTraces(body: Buffer, format: WireFormat): PackedSpanBatch {
  const native = format === "json" ? decodeTraceJsonNatively(body) : undefined;
  if (native === undefined) return packSpans(decodeTraceRequest(body, format));
  const spans = packedSpanCount(native);
  chargeDecoded(spans * RECORD_UNITS + (native.indexed.length - spans) / 2);
  return native;
}

/** The write request for a body, or null when it holds no records; throws past its allowance. */
function decode(request: DecodeRequest, body: Buffer): WriteRequest | null {
  // An object is at least two bytes (`{}`): a smaller body cannot hold too many, and is not scanned.
  const most = JSON_OBJECTS_PER_VALUE * request.maxValues;
  if (request.format === "json" && body.length / 2 > most && countJsonObjects(body, most) > most) {
    throw new TooManyValuesError(request.maxValues);
  }
  if (request.signal === "traces") {
    const batch = packedTraces(body, request.format);
    if (packedSpanCount(batch) === 0) return null;
    return { type: "spans", id: request.id, batch, receivedNs: request.receivedNs };
  }
  const batch = decodeLogRequest(body, request.format);
  if (batch.logs.length === 0) return null;
  return { type: "logs", id: request.id, batch: packLogs(batch), receivedNs: request.receivedNs };
}

port.on("message", (request: DecodeRequest) => {
  const body = Buffer.from(request.body);
  try {
    const { result: write, values } = decodeWithin(request.maxValues, () => decode(request, body));
    if (write === null) return reply({ type: "empty", id: request.id });
    writer.postMessage(write);
    reply({ type: "decoded", id: request.id, values });
  } catch (error) {
    if (error instanceof TooManyValuesError) reply({ type: "too-many-values", id: request.id, limit: error.limit });
    else if (error instanceof PayloadError) reply({ type: "invalid", id: request.id, message: error.message });
    else reply({ type: "error", id: request.id, message: (error as Error).message });
  }
});

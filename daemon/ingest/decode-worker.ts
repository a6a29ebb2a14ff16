/**
 * The decoder thread: turns OTLP request bodies into records and hands them straight to the
 * writer thread, so the main thread only speaks HTTP and stays responsive under load.
 */
import { type MessagePort, parentPort, workerData } from "node:worker_threads";
import {
  countJsonObjects,
  decodeWithin,
  JSON_OBJECTS_PER_VALUE,
  TooManyValuesError,
} from "../otlp/decode-allowance.js";
import { PayloadError } from "../otlp/payload-error.js";
import { SIGNALS, type SignalBatch, signalNamed } from "../signals/registry.js";
import { OUTBOX_FORMAT } from "../store/forward-outbox.js";
import type { WriteRequest } from "../store/writer-protocol.js";
import type { DecodeReply, DecodeRequest } from "./decode-protocol.js";

if (!parentPort) throw new Error("decode-worker must run as a worker thread");
const port = parentPort;
const { writer, forward } = workerData as { writer: MessagePort; forward: boolean };

/** Per signal, what this thread remembers of the batches it has posted (SignalModule.crossing). */
const senders = new Map(SIGNALS.map((signal) => [signal.name, signal.crossing?.sender()]));

function reply(message: DecodeReply): void {
  port.postMessage(message);
}

/** The write request for a body, or null when it holds no records; throws past its allowance. */
function decode(request: DecodeRequest, body: Buffer): WriteRequest | null {
  // An object is at least two bytes (`{}`): a smaller body cannot hold too many, and is not scanned.
  const most = JSON_OBJECTS_PER_VALUE * request.maxValues;
  if (request.format === "json" && body.length / 2 > most && countJsonObjects(body, most) > most) {
    throw new TooManyValuesError(request.maxValues);
  }
  const signal = signalNamed(request.signal);
  const batch = signal.decode(body, request.format);
  if (signal.count(batch) === 0) return null;
  return {
    type: "write",
    id: request.id,
    receivedNs: request.receivedNs,
    // A copy: the decoded records may still refer to the body's bytes.
    ...(forward ? { forward: { format: OUTBOX_FORMAT[request.format], body: new Uint8Array(body) } } : {}),
    ...({ signal: signal.name, batch } as SignalBatch),
  };
}

port.on("message", (request: DecodeRequest) => {
  const body = Buffer.from(request.body);
  try {
    const { result: write, values } = decodeWithin(request.maxValues, () => decode(request, body));
    if (write === null) return reply({ type: "empty", id: request.id });
    const posted = senders.get(write.signal)?.leave(write.batch as never);
    writer.postMessage(write, write.forward ? [write.forward.body.buffer as ArrayBuffer] : []);
    posted?.();
    reply({ type: "decoded", id: request.id, values });
  } catch (error) {
    if (error instanceof TooManyValuesError) reply({ type: "too-many-values", id: request.id, limit: error.limit });
    else if (error instanceof PayloadError) reply({ type: "invalid", id: request.id, message: error.message });
    else reply({ type: "error", id: request.id, message: (error as Error).message });
  }
});

/**
 * Success bodies for OTLP exports.
 *
 * The spec answers `{"accepted": N}`. An OTLP/protobuf client decodes the body of a 2xx as an
 * `Export*ServiceResponse` message, which plain JSON text is not. For protobuf requests obsd
 * sends a body that is both: the JSON text ` {"accepted":N}` padded with spaces to 101 bytes.
 * Read as protobuf, the leading space and `{` are a varint field 4, and `"` starts a
 * length-delimited field 4 whose length byte is the `a` (97) of "accepted", covering every
 * remaining byte. Field 4 is unknown in both response messages, so any conforming decoder
 * skips it and sees an empty (fully successful) response. See docs/ingest.md.
 *
 * When records were rejected (older than retention), the answer must carry OTLP's partial
 * success: `partialSuccess` beside `accepted` in JSON, and for protobuf the response message's
 * `partial_success` field. No byte sequence is both that message and JSON (its tags are control
 * characters), so that protobuf answer is the plain message.
 */
import protobuf from "protobufjs";
import type { Rejected } from "../ingest/rejected-records.js";
import { type SignalName, signalNamed } from "../signals/registry.js";

const PREFIX = ' {"a';
const FIELD_BYTES = 97; // the value of the byte "a"

/** The partial success names the rejected count as the signal's module does (`rejectedSpans`...). */
export function jsonAcceptedBody(
  accepted: number,
  signal: SignalName = "traces",
  rejected: Rejected | null = null,
): Buffer {
  if (!rejected) return Buffer.from(JSON.stringify({ accepted }));
  const partialSuccess = { [signalNamed(signal).rejectedField]: rejected.count, errorMessage: rejected.message };
  return Buffer.from(JSON.stringify({ accepted, partialSuccess }));
}

/**
 * `Export{Trace,Logs}ServiceResponse { partial_success = 1 }`, whose message is
 * `{ int64 rejected_* = 1; string error_message = 2 }` in both signals.
 */
export function partialSuccessMessage(rejected: Rejected): Buffer {
  const writer = protobuf.Writer.create();
  writer.uint32((1 << 3) | 2).fork();
  writer.uint32((1 << 3) | 0).int64(rejected.count);
  writer.uint32((2 << 3) | 2).string(rejected.message);
  writer.ldelim();
  return Buffer.from(writer.finish());
}

/** The 200 body for a protobuf request. */
export function protobufAcceptedBody(accepted: number, rejected: Rejected | null): Buffer {
  return rejected ? partialSuccessMessage(rejected) : dualAcceptedBody(accepted);
}

export function dualAcceptedBody(accepted: number): Buffer {
  const rest = `ccepted":${accepted}}`;
  return Buffer.from(PREFIX + rest.padEnd(FIELD_BYTES, " "), "latin1");
}

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
 */

const PREFIX = ' {"a';
const FIELD_BYTES = 97; // the value of the byte "a"

export function jsonAcceptedBody(accepted: number): Buffer {
  return Buffer.from(JSON.stringify({ accepted }));
}

export function dualAcceptedBody(accepted: number): Buffer {
  const rest = `ccepted":${accepted}}`;
  return Buffer.from(PREFIX + rest.padEnd(FIELD_BYTES, " "), "latin1");
}

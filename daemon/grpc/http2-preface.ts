/**
 * Telling an HTTP/2 prior-knowledge connection (OTLP/gRPC over cleartext) from HTTP/1.1 by its
 * first bytes. Every HTTP/2 client opens with the same 24-byte preface; no HTTP/1.1 request
 * line starts with it. The verdict is taken on the whole preface only: a read that stops short
 * but is still a prefix waits for more (a client may send it in pieces), and the first byte
 * that differs settles it as HTTP/1.1.
 */
export const HTTP2_PREFACE = Buffer.from("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n", "latin1");

export type PrefaceVerdict = "http2" | "http1" | "undecided";

/** What the bytes read so far from a new connection make it. */
export function prefaceVerdict(bytes: Buffer): PrefaceVerdict {
  const compared = Math.min(bytes.length, HTTP2_PREFACE.length);
  if (bytes.compare(HTTP2_PREFACE, 0, compared, 0, compared) !== 0) return "http1";
  return compared === HTTP2_PREFACE.length ? "http2" : "undecided";
}

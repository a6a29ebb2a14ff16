import type { IncomingMessage } from "node:http";
import { contentEncodingOf, readCapped } from "../ingest/body-cap.js";

/**
 * Reads an HTTP request body within `maxBytes` (sent and inflated): the HTTP side of the
 * transport-neutral body cap (daemon/ingest/body-cap.ts). Rejects with an IngestError.
 */
export function readBody(req: IncomingMessage, maxBytes: number): Promise<Buffer> {
  let encoding: ReturnType<typeof contentEncodingOf>;
  try {
    encoding = contentEncodingOf(req.headers["content-encoding"]);
  } catch (error) {
    return Promise.reject(error);
  }
  return readCapped(req, {
    maxBytes,
    encoding,
    declaredBytes: Number(req.headers["content-length"] ?? Number.NaN),
    cutOff: () => req.socket.destroy(),
  });
}

import type { IncomingMessage } from "node:http";
import { createGunzip, type Gunzip } from "node:zlib";
import { HttpError } from "./http-error.js";

/**
 * After a refusal the rest of the body is read and thrown away, so the client finishes sending
 * and reads the 413 instead of failing on a reset connection. Past this many bytes the
 * connection is cut: a client that keeps streaming is not owed an answer.
 */
export const DISCARD_LIMIT_BYTES = 64 * 1024 * 1024;

function tooLarge(what: string, maxBytes: number): HttpError {
  return new HttpError(413, `${what} is larger than the ${maxBytes}-byte limit`);
}

function discardRest(req: IncomingMessage): void {
  let discarded = 0;
  req.on("data", (chunk: Buffer) => {
    discarded += chunk.length;
    if (discarded > DISCARD_LIMIT_BYTES) req.socket.destroy();
  });
  req.resume();
}

/**
 * Reads a request body, inflating `Content-Encoding: gzip` as a stream. Both the transferred
 * and the inflated size are capped while reading, so a gzip bomb is never inflated into memory.
 * The result owns its ArrayBuffer, so it can be transferred to another thread.
 */
export function readBody(req: IncomingMessage, maxBytes: number): Promise<Buffer> {
  const encoding = (req.headers["content-encoding"] ?? "identity").trim().toLowerCase();
  if (encoding !== "identity" && encoding !== "gzip" && encoding !== "x-gzip") {
    return Promise.reject(new HttpError(415, `unsupported Content-Encoding "${encoding}": send gzip or no encoding`));
  }
  const declared = Number(req.headers["content-length"] ?? Number.NaN);
  if (declared > maxBytes) {
    discardRest(req);
    return Promise.reject(tooLarge("the request body", maxBytes));
  }

  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let transferred = 0;
    let inflated = 0;
    let settled = false;
    const gunzip: Gunzip | null = encoding === "identity" ? null : createGunzip();

    const fail = (error: HttpError) => {
      if (settled) return;
      settled = true;
      req.off("data", onData);
      gunzip?.destroy();
      discardRest(req);
      reject(error);
    };
    const finish = () => {
      if (settled) return;
      settled = true;
      // A buffer of its own (never a slice of Node's shared pool) so it can be transferred.
      const body = Buffer.allocUnsafeSlow(chunks.reduce((n, c) => n + c.length, 0));
      let offset = 0;
      for (const chunk of chunks) offset += chunk.copy(body, offset);
      resolve(body);
    };
    const onData = (chunk: Buffer) => {
      transferred += chunk.length;
      if (transferred > maxBytes) return fail(tooLarge("the request body", maxBytes));
      if (!gunzip) return void chunks.push(chunk);
      if (!gunzip.write(chunk)) {
        req.pause();
        gunzip.once("drain", () => req.resume());
      }
    };

    req.on("data", onData);
    req.on("error", () => fail(new HttpError(400, "the request body was cut off")));
    req.on("aborted", () => fail(new HttpError(400, "the request was aborted")));
    if (gunzip) {
      gunzip.on("data", (chunk: Buffer) => {
        inflated += chunk.length;
        if (inflated > maxBytes) fail(tooLarge("the inflated request body", maxBytes));
        else chunks.push(chunk);
      });
      gunzip.on("error", (error) => fail(new HttpError(400, `invalid gzip body: ${error.message}`)));
      gunzip.on("end", finish);
      req.on("end", () => gunzip.end());
    } else {
      req.on("end", finish);
    }
  });
}

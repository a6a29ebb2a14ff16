/**
 * The body cap, for any transport: a request body read from a stream (or given whole) with its
 * sent and its inflated size capped while it is read, so a gzip bomb is never inflated into
 * memory. Failures are ingest errors (ingest-errors.ts); the HTTP adapter is
 * daemon/http/read-body.ts.
 */
import { Readable } from "node:stream";
import { createGunzip, type Gunzip } from "node:zlib";
import { IngestError } from "./ingest-errors.js";

export type ContentEncoding = "identity" | "gzip";

/**
 * After a refusal the rest of the body is read and thrown away, so the client finishes sending
 * and reads the refusal instead of failing on a reset connection. Past this many bytes the
 * source is cut off: a client that keeps streaming is not owed an answer.
 */
export const DISCARD_LIMIT_BYTES = 64 * 1024 * 1024;

/**
 * The encoding a `Content-Encoding` value (or gRPC's `grpc-encoding`, named by `headerName`)
 * names; absent is identity.
 */
export function contentEncodingOf(header: string | undefined, headerName = "Content-Encoding"): ContentEncoding {
  const encoding = (header ?? "identity").trim().toLowerCase();
  if (encoding === "identity") return "identity";
  if (encoding === "gzip" || encoding === "x-gzip") return "gzip";
  throw new IngestError("unsupported-encoding", `unsupported ${headerName} "${encoding}": send gzip or no encoding`);
}

export interface CapOptions {
  maxBytes: number;
  encoding: ContentEncoding;
  /** The size the sender declared (Content-Length), refused at once when over the cap. */
  declaredBytes?: number;
  /** Ends the source's connection when a refused sender keeps streaming past DISCARD_LIMIT_BYTES. */
  cutOff?: () => void;
}

function tooLarge(what: string, maxBytes: number): IngestError {
  return new IngestError("too-large", `${what} is larger than the ${maxBytes}-byte limit`);
}

function discardRest(source: Readable, cutOff: () => void): void {
  let discarded = 0;
  source.on("data", (chunk: Buffer) => {
    discarded += chunk.length;
    if (discarded > DISCARD_LIMIT_BYTES) cutOff();
  });
  source.resume();
}

/**
 * Reads `source` whole, inflating gzip as a stream, within `maxBytes` sent and inflated.
 * Rejects with an IngestError. The result owns its ArrayBuffer, so it can be transferred to
 * another thread.
 */
export function readCapped(source: Readable, options: CapOptions): Promise<Buffer> {
  const { maxBytes, encoding } = options;
  const cutOff = options.cutOff ?? (() => source.destroy());
  if ((options.declaredBytes ?? Number.NaN) > maxBytes) {
    discardRest(source, cutOff);
    return Promise.reject(tooLarge("the request body", maxBytes));
  }

  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let transferred = 0;
    let inflated = 0;
    let settled = false;
    const gunzip: Gunzip | null = encoding === "identity" ? null : createGunzip();

    const fail = (error: IngestError) => {
      if (settled) return;
      settled = true;
      source.off("data", onData);
      gunzip?.destroy();
      discardRest(source, cutOff);
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
        source.pause();
        gunzip.once("drain", () => source.resume());
      }
    };

    source.on("data", onData);
    source.on("error", () => fail(new IngestError("invalid-payload", "the request body was cut off")));
    // An HTTP request whose client went away says so with `aborted`.
    source.on("aborted", () => fail(new IngestError("invalid-payload", "the request was aborted")));
    if (gunzip) {
      gunzip.on("data", (chunk: Buffer) => {
        inflated += chunk.length;
        if (inflated > maxBytes) fail(tooLarge("the inflated request body", maxBytes));
        else chunks.push(chunk);
      });
      gunzip.on("error", (error) => fail(new IngestError("invalid-payload", `invalid gzip body: ${error.message}`)));
      gunzip.on("end", finish);
      source.on("end", () => {
        // Refused as the OpenTelemetry Collector refuses it (its gzip reader needs a header),
        // but named for what it is rather than as a stream cut off.
        if (transferred === 0) {
          fail(
            new IngestError(
              "invalid-payload",
              "invalid gzip body: the body is empty, and a gzip stream has at least a 20-byte header and trailer",
            ),
          );
        } else gunzip.end();
      });
    } else {
      source.on("end", finish);
    }
  });
}

/** A body a transport already holds whole (a gRPC message), within the same caps. */
export function capBuffer(body: Buffer, encoding: ContentEncoding, maxBytes: number): Promise<Buffer> {
  return readCapped(Readable.from([body], { objectMode: false }), { maxBytes, encoding, declaredBytes: body.length });
}

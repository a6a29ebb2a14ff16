import { createHash, createHmac, timingSafeEqual } from "node:crypto";

/**
 * Opaque page cursors. A cursor carries the query's fixed time window, the sort key of the
 * last item returned, and a fingerprint of the filters, so the next page continues exactly
 * where the last one stopped (keyset pagination: stable while new data arrives) and a cursor
 * reused with other filters is refused.
 *
 * Cursors are signed with an HMAC keyed per store (store/cursor-key.ts): a cursor this
 * collector did not issue, or one edited by hand, is refused before any of its fields is
 * used, so no field of a cursor ever reaches a query unchecked. The fields are still
 * validated on decode: a key shared by two stores must not turn into a 500.
 */
export interface CursorState {
  /** Fingerprint of the filters the cursor was made for. */
  filters: string;
  /** The window, fixed at the first page: [fromNs, toNs]. */
  fromNs: bigint;
  toNs: bigint;
  /** Sort key of the last item returned: its timestamp and a tie-breaking id. */
  afterNs: bigint;
  afterId: string;
}

export class CursorError extends Error {
  override name = "CursorError";
}

const VERSION = 1;
/** Signature bytes kept: 128 bits, enough that guessing one is out of reach. */
const SIGNATURE_BYTES = 16;
const INT64 = /^-?\d{1,19}$/;
/** Row ids (decimal) and trace or span ids (hex): the only tie-breakers a cursor carries. */
const SORT_ID = /^[0-9a-f]{1,32}$/;
const MIN_INT64 = -(2n ** 63n);
const MAX_INT64 = 2n ** 63n - 1n;

const INVALID = "invalid cursor: copy nextCursor from the previous page unchanged";
const FOREIGN =
  "invalid cursor: it was not issued by this collector for this query; copy nextCursor from the previous page unchanged, or drop the cursor";

function sign(body: string, key: Buffer): Buffer {
  return createHmac("sha256", key).update(body).digest().subarray(0, SIGNATURE_BYTES);
}

export function encodeCursor(state: CursorState, key: Buffer): string {
  const payload = [
    VERSION,
    state.filters,
    String(state.fromNs),
    String(state.toNs),
    String(state.afterNs),
    state.afterId,
  ];
  const body = Buffer.from(JSON.stringify(payload)).toString("base64url");
  return `${body}.${sign(body, key).toString("base64url")}`;
}

function int64(text: unknown): bigint {
  if (typeof text !== "string" || !INT64.test(text)) throw new CursorError(INVALID);
  const n = BigInt(text);
  if (n < MIN_INT64 || n > MAX_INT64) throw new CursorError(INVALID);
  return n;
}

export function decodeCursor(token: string, filters: string, key: Buffer): CursorState {
  const [body, signature, ...rest] = token.split(".");
  if (!body || signature === undefined || rest.length > 0) throw new CursorError(FOREIGN);
  const given = Buffer.from(signature, "base64url");
  const expected = sign(body, key);
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) throw new CursorError(FOREIGN);
  let payload: unknown;
  try {
    payload = JSON.parse(Buffer.from(body, "base64url").toString("utf8"));
  } catch {
    throw new CursorError(INVALID);
  }
  if (!Array.isArray(payload) || payload.length !== 6 || payload[0] !== VERSION) throw new CursorError(INVALID);
  const [, fingerprint, from, to, after, afterId] = payload as unknown[];
  if (fingerprint !== filters) {
    throw new CursorError(
      "this cursor belongs to a query with other filters; repeat the same filters or drop the cursor",
    );
  }
  if (typeof afterId !== "string" || !SORT_ID.test(afterId)) throw new CursorError(INVALID);
  return { filters: fingerprint, fromNs: int64(from), toNs: int64(to), afterNs: int64(after), afterId };
}

/** A short, stable fingerprint of a query's filters (everything but limit and cursor). */
export function filterFingerprint(filters: Record<string, unknown>): string {
  const canonical = JSON.stringify(
    Object.keys(filters)
      .sort()
      .map((key) => [key, filters[key]]),
  );
  return createHash("sha256").update(canonical).digest("base64url").slice(0, 16);
}

import { createHash } from "node:crypto";

/**
 * Opaque page cursors. A cursor carries the query's fixed time window, the sort key of the
 * last item returned, and a fingerprint of the filters, so the next page continues exactly
 * where the last one stopped (keyset pagination: stable while new data arrives) and a cursor
 * reused with other filters is refused.
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

export function encodeCursor(state: CursorState): string {
  const payload = [
    VERSION,
    state.filters,
    String(state.fromNs),
    String(state.toNs),
    String(state.afterNs),
    state.afterId,
  ];
  return Buffer.from(JSON.stringify(payload)).toString("base64url");
}

export function decodeCursor(token: string, filters: string): CursorState {
  let payload: unknown;
  try {
    payload = JSON.parse(Buffer.from(token, "base64url").toString("utf8"));
  } catch {
    throw new CursorError("invalid cursor: copy nextCursor from the previous page unchanged");
  }
  if (!Array.isArray(payload) || payload.length !== 6 || payload[0] !== VERSION) {
    throw new CursorError("invalid cursor: copy nextCursor from the previous page unchanged");
  }
  const [, fingerprint, from, to, after, afterId] = payload as [number, string, string, string, string, string];
  if (fingerprint !== filters) {
    throw new CursorError(
      "this cursor belongs to a query with other filters; repeat the same filters or drop the cursor",
    );
  }
  try {
    return {
      filters: fingerprint,
      fromNs: BigInt(from),
      toNs: BigInt(to),
      afterNs: BigInt(after),
      afterId: String(afterId),
    };
  } catch {
    throw new CursorError("invalid cursor: copy nextCursor from the previous page unchanged");
  }
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

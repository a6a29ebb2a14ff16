import type { PageMeta } from "../../shared/api-records.js";
import { type CursorError, decodeCursor, encodeCursor, filterFingerprint } from "../../shared/cursor.js";
import { formatDuration } from "../../shared/duration.js";
import { effectiveLimit, type ParsedParams, QueryError } from "./query-params.js";
import type { PageRequest, PageResult } from "./telemetry-reader.js";

export interface PagingDefaults {
  limit: number;
  cap: number;
  /** Lookback when none is given, in milliseconds. */
  lookbackMs: number;
}

export interface Paging {
  page: PageRequest;
  fingerprint: string;
  lookback: string;
  /** The store's key that signs this query's cursors. */
  key: Buffer;
}

/**
 * The window and position of a list query. The first page's window ends now; a cursor
 * carries its window forward, so later pages are not shifted by new data or passing time.
 */
export function pagingFor(
  route: string,
  parsed: ParsedParams,
  defaults: PagingDefaults,
  nowNs: bigint,
  key: Buffer,
): Paging {
  const { cursor, limit, ...filters } = parsed.values;
  const lookbackMs = typeof filters.lookback === "number" ? filters.lookback : defaults.lookbackMs;
  const fingerprint = filterFingerprint({
    route,
    ...filters,
    lookback: lookbackMs,
    attrs: parsed.attrs,
    attrContains: parsed.attrContains,
  });
  const effective = effectiveLimit(limit, defaults);
  if (typeof cursor === "string") {
    try {
      const state = decodeCursor(cursor, fingerprint, key);
      return {
        page: {
          fromNs: state.fromNs,
          toNs: state.toNs,
          limit: effective,
          after: { ns: state.afterNs, id: state.afterId },
        },
        fingerprint,
        lookback: formatDuration(lookbackMs),
        key,
      };
    } catch (error) {
      throw new QueryError((error as CursorError).message);
    }
  }
  return {
    page: { fromNs: nowNs - BigInt(lookbackMs) * 1_000_000n, toNs: nowNs, limit: effective },
    fingerprint,
    lookback: formatDuration(lookbackMs),
    key,
  };
}

/** The page metadata, with a cursor for the next page when more items match. */
export function pageMeta(result: PageResult<unknown>, paging: Paging): PageMeta {
  const nextCursor =
    result.more && result.last
      ? encodeCursor(
          {
            filters: paging.fingerprint,
            fromNs: paging.page.fromNs,
            toNs: paging.page.toNs,
            afterNs: result.last.ns,
            afterId: result.last.id,
          },
          paging.key,
        )
      : null;
  return {
    limit: paging.page.limit,
    lookback: paging.lookback,
    returned: result.items.length,
    truncated: result.more,
    nextCursor,
  };
}

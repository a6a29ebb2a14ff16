import type { PageMeta } from "../../shared/api-records.js";
import { type CursorError, decodeCursor, encodeCursor, filterFingerprint } from "../../shared/cursor.js";
import { formatDuration, parseDuration } from "../../shared/duration.js";
import { QueryError } from "../../shared/query-error.js";
import { effectiveLimit } from "../../shared/query-params.js";
import type { QueryRoute } from "../../shared/query-routes.js";
import type { AttrFilters } from "../../shared/query-types.js";
import type { PageRequest, PageResult } from "./telemetry-reader.js";

export interface PagingDefaults {
  limit: number;
  cap: number;
  /** Lookback when none is given, in milliseconds; null: no time bound (correlatedLookback). */
  lookbackMs: number | null;
}

/** A route's default lookback in milliseconds, as the route table states it; null without one. */
export function defaultLookbackMs(route: QueryRoute): number | null {
  const { lookback } = route.params;
  return lookback?.default !== undefined ? parseDuration(String(lookback.default)) : null;
}

/** The default lookback of a route that states one (every unpaged windowed route does), in milliseconds. */
export function statedLookbackMs(route: QueryRoute): number {
  const ms = defaultLookbackMs(route);
  if (ms === null) throw new Error("the route states no default lookback");
  return ms;
}

/** The latest time a store keeps (2^63 - 1 ns): the end of a window with no time bound. */
const LATEST_NS = 2n ** 63n - 1n;

/** A route's page size, cap and default lookback, as the route table states them. */
export function pagingDefaults(route: QueryRoute): PagingDefaults {
  const { limit } = route.params;
  if (limit?.default === undefined || limit.cap === undefined) throw new Error("a paged route states its limit");
  return { limit: Number(limit.default), cap: Number(limit.cap), lookbackMs: defaultLookbackMs(route) };
}

/** Where a list query starts: the requested page size and the previous page's cursor. */
export interface PageStart {
  limit?: number | undefined;
  cursor?: string | undefined;
}

/**
 * What a page's cursor is bound to: the route (with the trace or span it is about), the
 * filters as given (lookback included) and the attribute filters.
 */
export interface PageFilters {
  route: string;
  filters: Record<string, unknown>;
  attrs?: AttrFilters | undefined;
  attrContains?: AttrFilters | undefined;
}

export interface Paging {
  page: PageRequest;
  fingerprint: string;
  /** The lookback the window was made from, as text; null when it has no time bound. */
  lookback: string | null;
  /** The store's key that signs this query's cursors. */
  key: Buffer;
}

/**
 * Attribute filters in one order, by key then value: they all apply together, so the same
 * filters given in another order on the next page are the same query, and take its cursor.
 */
function canonicalPairs(pairs: AttrFilters | undefined): AttrFilters {
  const order = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
  return [...(pairs ?? [])].sort(([ka, va], [kb, vb]) => order(ka, kb) || order(va, vb));
}

/** The given filters only: an absent filter and one set to undefined make the same cursor. */
function given(filters: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(filters).filter(([, value]) => value !== undefined));
}

/**
 * The window and position of a list query. The first page's window ends now; a cursor
 * carries its window forward, so later pages are not shifted by new data or passing time.
 */
export function pagingFor(
  scope: PageFilters,
  start: PageStart,
  defaults: PagingDefaults,
  nowNs: bigint,
  key: Buffer,
): Paging {
  const filters = given(scope.filters);
  const lookbackMs = typeof filters.lookback === "number" ? filters.lookback : defaults.lookbackMs;
  const lookback = lookbackMs === null ? null : formatDuration(lookbackMs);
  const fingerprint = filterFingerprint({
    route: scope.route,
    ...filters,
    lookback: lookbackMs,
    attrs: canonicalPairs(scope.attrs),
    attrContains: canonicalPairs(scope.attrContains),
  });
  const effective = effectiveLimit(start.limit, defaults);
  if (typeof start.cursor === "string") {
    try {
      const state = decodeCursor(start.cursor, fingerprint, key);
      return {
        page: {
          fromNs: state.fromNs,
          toNs: state.toNs,
          limit: effective,
          after: { ns: state.afterNs, id: state.afterId },
        },
        fingerprint,
        lookback,
        key,
      };
    } catch (error) {
      throw new QueryError((error as CursorError).message);
    }
  }
  const window =
    lookbackMs === null
      ? { fromNs: 0n, toNs: LATEST_NS }
      : { fromNs: nowNs - BigInt(lookbackMs) * 1_000_000n, toNs: nowNs };
  return { page: { ...window, limit: effective }, fingerprint, lookback, key };
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

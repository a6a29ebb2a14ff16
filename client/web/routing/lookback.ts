/** The window a view looks back over: the `lookback` parameter of its URL and of its API requests. Pure. */

/** The windows the time range offers; the API caps lookback at 24h. */
export const LOOKBACKS = ["5m", "15m", "1h", "6h", "24h"] as const;
export const DEFAULT_LOOKBACK = "1h";

/** The view's window from its query string, or the default. */
export function lookbackOf(query: URLSearchParams): string {
  return query.get("lookback") || DEFAULT_LOOKBACK;
}

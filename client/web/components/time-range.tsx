import { setQuery } from "../routing/router.js";

/** The windows a view can look back over; the API caps lookback at 24h. */
export const LOOKBACKS = ["5m", "15m", "1h", "6h", "24h"] as const;
export const DEFAULT_LOOKBACK = "1h";

/** The view's window from its query string (`lookback`), or the default. */
export function lookbackOf(query: URLSearchParams): string {
  return query.get("lookback") || DEFAULT_LOOKBACK;
}

/** Shows and sets the view's window; it lives in the query string as `lookback`. */
export function TimeRange({ query }: { query: URLSearchParams }) {
  const current = lookbackOf(query);
  const choices = LOOKBACKS.includes(current as (typeof LOOKBACKS)[number]) ? LOOKBACKS : [current, ...LOOKBACKS];
  return (
    <label class="time-range">
      <span>Last</span>
      <select
        aria-label="Time range"
        value={current}
        onChange={(event) => setQuery({ lookback: (event.currentTarget as HTMLSelectElement).value })}
      >
        {choices.map((choice) => (
          <option key={choice} value={choice}>
            {choice}
          </option>
        ))}
      </select>
    </label>
  );
}

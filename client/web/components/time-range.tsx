import { LOOKBACKS, lookbackOf } from "../routing/lookback.js";
import { setQuery } from "../routing/router.js";

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

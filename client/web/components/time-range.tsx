import { LOOKBACKS, lookbackOf } from "../routing/lookback.js";
import { setQuery } from "../routing/router.js";

/**
 * Shows and sets the view's window; it lives in the query string as `lookback`. `alongWith`
 * gives the other parameters that a new window changes (a step it cannot take).
 */
export function TimeRange({
  query,
  alongWith,
}: {
  query: URLSearchParams;
  alongWith?: (lookback: string) => Record<string, string | null>;
}) {
  const current = lookbackOf(query);
  const choices = LOOKBACKS.includes(current as (typeof LOOKBACKS)[number]) ? LOOKBACKS : [current, ...LOOKBACKS];
  return (
    <label class="time-range">
      <span>Last</span>
      <select
        aria-label="Time range"
        value={current}
        onChange={(event) => {
          const lookback = (event.currentTarget as HTMLSelectElement).value;
          setQuery({ ...alongWith?.(lookback), lookback });
        }}
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

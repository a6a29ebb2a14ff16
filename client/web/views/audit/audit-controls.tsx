import { query } from "../../api/query.js";
import { ServiceSelect } from "../../components/service-select.js";
import { useQuery } from "../../live/use-query.js";
import { numberOf, textOf } from "../../routing/query-filters.js";
import { setQuery } from "../../routing/router.js";
import { DEFAULT_AUDIT_MINUTES, minutesLabel, windowChoices } from "./audit-request.js";

function inputValue(event: Event): string {
  return (event.currentTarget as HTMLInputElement | HTMLSelectElement).value;
}

/** The audit's parameters, each in the query string under the route's name. */
export function AuditControls({ params }: { params: URLSearchParams }) {
  const minutes = numberOf(params, "lookbackMinutes");
  const baseline = numberOf(params, "baselineMinutes");
  // A value that is no number stays chosen as typed: the collector's refusal of it is shown.
  const unreadMinutes = minutes === undefined ? textOf(params, "lookbackMinutes") : undefined;
  const unreadBaseline = baseline === undefined ? textOf(params, "baselineMinutes") : undefined;
  const service = textOf(params, "service") ?? "";
  const until = textOf(params, "until");
  const servicesLookback = minutesLabel(Math.min(minutes ?? DEFAULT_AUDIT_MINUTES, 1440));
  const services = useQuery(`services:${servicesLookback}`, (signal) =>
    query("listServices", { lookback: servicesLookback }, signal),
  );
  const names = (services.data?.data ?? []).map((s) => s.name).sort();
  if (service && !names.includes(service)) names.unshift(service);

  return (
    <form class="filters audit-controls" aria-label="Audit parameters" onSubmit={(event) => event.preventDefault()}>
      <label>
        Window
        <select
          name="lookbackMinutes"
          value={unreadMinutes ?? String(minutes ?? DEFAULT_AUDIT_MINUTES)}
          onChange={(event) => setQuery({ lookbackMinutes: inputValue(event) })}
        >
          {unreadMinutes !== undefined && <option value={unreadMinutes}>“{unreadMinutes}”</option>}
          {windowChoices(minutes ?? DEFAULT_AUDIT_MINUTES).map((choice) => (
            <option key={choice} value={String(choice)}>
              last {minutesLabel(choice)}
            </option>
          ))}
        </select>
      </label>
      <label>
        Baseline
        <select
          name="baselineMinutes"
          value={unreadBaseline ?? (baseline === undefined ? "" : String(baseline))}
          onChange={(event) => setQuery({ baselineMinutes: inputValue(event) })}
        >
          <option value="">same length</option>
          {unreadBaseline !== undefined && <option value={unreadBaseline}>“{unreadBaseline}”</option>}
          {windowChoices(baseline).map((choice) => (
            <option key={choice} value={String(choice)}>
              {minutesLabel(choice)} before
            </option>
          ))}
        </select>
      </label>
      <ServiceSelect value={service} names={names} anyLabel="all" onChange={(name) => setQuery({ service: name })} />
      <label title="Given, the audit lists traces at or above it; absent, it compares each operation's p95 with the baseline">
        Slow at (ms)
        <input
          type="number"
          name="durationMin"
          min={0}
          size={8}
          placeholder="p95 vs baseline"
          value={textOf(params, "durationMin") ?? ""}
          onChange={(event) => setQuery({ durationMin: inputValue(event) }, { replace: true })}
        />
      </label>
      {until && (
        <span class="chip">
          <span>until {until}</span>
          <button type="button" aria-label="Audit up to now" onClick={() => setQuery({ until: null })}>
            ×
          </button>
        </span>
      )}
    </form>
  );
}

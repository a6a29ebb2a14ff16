/** The chart's controls: group by, aggregation and step, each kept in the address. */
import type { MetricAgg } from "../../../../shared/query-types.js";
import { setQuery } from "../../routing/router.js";
import { groupByPhrase } from "./chart-summary.js";
import { aggLabel } from "./metric-kinds.js";
import { toggleGroupBy } from "./metric-query.js";
import { stepOptions } from "./step-choices.js";

interface Props {
  groupBy: string[];
  /** service and attr.KEY for each attribute the metric's series carry. */
  groupKeys: string[];
  aggs: readonly MetricAgg[];
  agg: string | undefined;
  defaultAgg: MetricAgg | undefined;
  step: string | undefined;
  /** The step the collector chose when the address has none. */
  autoStep: string | undefined;
  lookback: string;
}

function GroupByControl({ groupBy, groupKeys }: Pick<Props, "groupBy" | "groupKeys">) {
  const keys = [...groupKeys, ...groupBy.filter((key) => !groupKeys.includes(key))];
  return (
    <details
      class="group-by"
      onKeyDown={(event) => {
        // Escape closes the open list and gives the focus back to its summary.
        const details = event.currentTarget as HTMLDetailsElement;
        if (event.key !== "Escape" || !details.open) return;
        details.open = false;
        details.querySelector("summary")?.focus();
      }}
    >
      <summary aria-label={`Group by: ${groupBy.length > 0 ? groupByPhrase(groupBy) : "none"}`}>
        Group by <strong>{groupBy.length > 0 ? groupByPhrase(groupBy) : "none"}</strong>
      </summary>
      <fieldset>
        <legend class="muted">Group by (several combine)</legend>
        <label>
          <input type="checkbox" checked={groupBy.length === 0} onChange={() => setQuery({ groupBy: null })} />
          none
        </label>
        {keys.map((key) => (
          <label key={key}>
            <input
              type="checkbox"
              value={key}
              checked={groupBy.includes(key)}
              onChange={() => setQuery({ groupBy: toggleGroupBy(groupBy, key) })}
            />
            {key.startsWith("attr.") ? key.slice("attr.".length) : key}
          </label>
        ))}
      </fieldset>
    </details>
  );
}

export function MetricControls(props: Props) {
  const { aggs, agg, defaultAgg, step, autoStep, lookback } = props;
  const aggChoices: string[] = agg !== undefined && !aggs.includes(agg as MetricAgg) ? [agg, ...aggs] : [...aggs];
  return (
    <div class="metric-controls">
      <GroupByControl groupBy={props.groupBy} groupKeys={props.groupKeys} />
      <label>
        <span>Aggregation</span>
        <select
          aria-label="Aggregation"
          value={agg ?? defaultAgg ?? ""}
          onChange={(event) => setQuery({ agg: (event.currentTarget as HTMLSelectElement).value })}
        >
          {aggChoices.map((choice) => (
            <option key={choice} value={choice}>
              {aggs.includes(choice as MetricAgg) ? aggLabel(choice as MetricAgg) : choice}
            </option>
          ))}
        </select>
      </label>
      <label>
        <span>Step</span>
        <select
          aria-label="Step"
          value={step ?? ""}
          onChange={(event) => setQuery({ step: (event.currentTarget as HTMLSelectElement).value })}
        >
          <option value="">auto{autoStep && step === undefined ? ` (${autoStep})` : ""}</option>
          {stepOptions(lookback, step).map((choice) => (
            <option key={choice} value={choice}>
              {choice}
            </option>
          ))}
        </select>
      </label>
    </div>
  );
}

/**
 * /ui/metrics: the metric list and, when `name` selects one, its chart beside it (first on a
 * narrow window). Requests stay at most one a second in all: the list is live every second while
 * no metric is shown; with one, its series refresh every few seconds, and the list and the
 * metric's details every BESIDE_CHART_REFRESH_MS (their last times would otherwise age on screen,
 * and read as a metric that stopped).
 */
import "./metrics.css";
import type { MetricSummaryRecord } from "../../../../shared/query-types.js";
import { apiHref, query } from "../../api/query.js";
import { ErrorBox } from "../../components/error-box.js";
import { LiveToggle } from "../../components/live-toggle.js";
import { TimeRange } from "../../components/time-range.js";
import { ViewHeader } from "../../components/view-header.js";
import { useLive } from "../../live/live-state.js";
import { usePagedQuery } from "../../live/use-paged-query.js";
import type { Route } from "../../routing/router.js";
import { MetricList } from "./metric-list.js";
import { BESIDE_CHART_REFRESH_MS, MetricPanel, useMetricSeries } from "./metric-panel.js";
import { controlsOf, isCharted, listRequestOf } from "./metric-query.js";
import { stepAlongWith } from "./step-choices.js";

export function MetricsView({ route }: { route: Route }) {
  const controls = controlsOf(route.query);
  const [live] = useLive();
  const listRequest = listRequestOf(controls);
  const paged = usePagedQuery<MetricSummaryRecord>(
    apiHref("listMetrics", listRequest),
    (cursor, signal) => query("listMetrics", { ...listRequest, ...(cursor ? { cursor } : {}) }, signal),
    controls.name === undefined ? { live } : { live, intervalMs: BESIDE_CHART_REFRESH_MS },
  );
  const name = controls.name;
  const series = useMetricSeries(controls, name, live);
  const charted = series.data?.data;
  const chartedRows = paged.items.filter((metric) => isCharted(metric, paged.items, name, charted));
  const listed = chartedRows[0];
  // Identities read as one (a cumulative counter and a delta one): the chart is of them all.
  const temporalities = [...new Set(chartedRows.flatMap((metric) => metric.temporality ?? []))].sort();

  return (
    <section class="view metrics-view" aria-label="Metrics">
      <ViewHeader title="Metrics">
        <TimeRange query={route.query} alongWith={stepAlongWith(controls.step)} />
        <LiveToggle updatedAt={name ? series.updatedAt : paged.updatedAt} />
      </ViewHeader>
      <ErrorBox error={paged.error} />
      <div class={`metrics-layout${name ? " has-selection" : ""}`}>
        <MetricList controls={controls} query={route.query} paged={paged} charted={charted} />
        {name ? (
          <MetricPanel
            name={name}
            controls={controls}
            series={series}
            listed={listed}
            temporalities={temporalities}
            query={route.query}
          />
        ) : (
          paged.items.length > 0 && <p class="muted metric-hint">Select a metric to chart it.</p>
        )}
      </div>
    </section>
  );
}

/**
 * The selected metric: its chart (or the same numbers as a table), the controls, the exemplars
 * and what the collector knows of it. The series refresh every few seconds while live; the
 * description (its last point, its services) every BESIDE_CHART_REFRESH_MS.
 */
import { useMemo, useState } from "preact/hooks";
import { addsUp } from "../../../../shared/metric-routes.js";
import type { MetricSummaryRecord, QueryAnswerOf } from "../../../../shared/query-types.js";
import { apiHref, query } from "../../api/query.js";
import { ErrorBox } from "../../components/error-box.js";
import { useLive } from "../../live/live-state.js";
import type { QueryState } from "../../live/use-query.js";
import { useQuery } from "../../live/use-query.js";
import { Link } from "../../routing/link.js";
import { chartSummary } from "./chart-summary.js";
import { ExemplarList } from "./exemplar-list.js";
import { exemplarRows } from "./exemplar-rows.js";
import { MetricChart } from "./metric-chart.js";
import { MetricControls } from "./metric-controls.js";
import { ActiveFilters, MetricDetails } from "./metric-details.js";
import { allowedAggs, defaultAgg, type MetricKind, typeLabel } from "./metric-kinds.js";
import { type MetricControls as Controls, describeRequestOf, listOnlyHref, seriesRequestOf } from "./metric-query.js";
import { hasPoints, inLabelOrder, plotDataOf } from "./series-data.js";
import { SeriesTable } from "./series-table.js";

/** How often a live chart asks again: the series is the view's busiest request while a metric is shown. */
export const SERIES_REFRESH_MS = 3000;

/** How often the metric list and the metric's description refresh beside a live chart. */
export const BESIDE_CHART_REFRESH_MS = 15_000;

export type SeriesState = QueryState<QueryAnswerOf<"metricSeries"> | undefined>;

/** The selected metric's series; no request while none is selected. */
export function useMetricSeries(controls: Controls, name: string | undefined, live: boolean): SeriesState {
  const request = name === undefined ? undefined : seriesRequestOf(controls, name);
  return useQuery(
    request ? apiHref("metricSeries", request) : "",
    (signal) => (request ? query("metricSeries", request, signal) : Promise.resolve(undefined)),
    { live: live && request !== undefined, intervalMs: SERIES_REFRESH_MS },
  );
}

function kindOf(
  detail: MetricKind | undefined,
  listed: MetricKind | undefined,
  series: SeriesState["data"],
): MetricKind | undefined {
  if (detail) return detail;
  if (listed) return listed;
  if (!series) return undefined;
  return { type: series.data.type, monotonic: series.data.monotonic, temporality: series.data.temporality };
}

export function MetricPanel({
  name,
  controls,
  series,
  listed,
  temporalities,
  query: routeQuery,
}: {
  name: string;
  controls: Controls;
  series: SeriesState;
  listed: MetricSummaryRecord | undefined;
  /** The temporalities of the listed identities charted together, where the list has them. */
  temporalities: readonly string[];
  query: URLSearchParams;
}) {
  const [asTable, setAsTable] = useState(false);
  const [live] = useLive();
  const describeRequest = describeRequestOf(controls, name);
  const describe = useQuery(
    apiHref("describeMetric", describeRequest),
    (signal) => query("describeMetric", describeRequest, signal),
    { live, intervalMs: BESIDE_CHART_REFRESH_MS },
  );
  const detail = describe.data?.data;
  const answered = series.data?.data;
  const kind = kindOf(detail, listed, series.data);
  // In the order of the groups' labels: the chart, its legend, the table and the exemplars alike.
  const record = useMemo(() => (answered ? inLabelOrder(answered) : undefined), [answered]);
  const plot = useMemo(() => (record ? plotDataOf(record) : undefined), [record]);
  const exemplars = useMemo(() => (record ? exemplarRows(record) : []), [record]);
  const groupKeys = ["service", ...(detail?.attributes ?? []).map((attribute) => `attr.${attribute.key}`)];
  const summary = record ? chartSummary(record, controls.groupBy, controls.lookback) : "";

  return (
    <section class="metric-panel" aria-label={`Metric ${name}`}>
      <div class="metric-panel-head">
        <h2>{name}</h2>
        {kind && (
          <span class="muted">
            {typeLabel(kind)}
            {record?.valueUnit ? ` · ${record.valueUnit}` : ""}
            {record ? ` · step ${record.step}` : ""}
          </span>
        )}
        <Link class="close" href={listOnlyHref(routeQuery)} aria-label="Close the chart">
          ×
        </Link>
      </div>
      {detail?.description && <p class="metric-description">{detail.description}</p>}
      <div class="metric-toolbar">
        <MetricControls
          groupBy={controls.groupBy}
          groupKeys={groupKeys}
          aggs={kind ? allowedAggs(kind) : []}
          agg={controls.agg}
          defaultAgg={kind ? defaultAgg(kind) : undefined}
          step={controls.step}
          autoStep={record?.step}
          lookback={controls.lookback}
        />
        <button type="button" aria-pressed={asTable} onClick={() => setAsTable(!asTable)}>
          {asTable ? "Show as chart" : "Show as table"}
        </button>
      </div>
      <ActiveFilters attrs={controls.attrs} service={controls.service} />
      <ErrorBox error={series.error} />
      {series.data?.meta.truncated && (
        <p class="cap-notice" role="status">
          Showing the {series.data.meta.returned} groups with the largest{" "}
          {record && addsUp(record) ? "totals over the window" : "latest value"}; more groups exist. Filter by an
          attribute or group by fewer keys to see the rest.
        </p>
      )}
      {!record && series.loading && !series.error && <p class="muted">Loading {name}…</p>}
      {record && plot && !hasPoints(record) && (
        <p class="muted empty" role="status">
          No points of {name} in the last {controls.lookback}
          {controls.attrs.length > 0 || controls.service ? " with these filters" : ""}. Widen the window or remove a
          filter.
        </p>
      )}
      {record &&
        plot &&
        hasPoints(record) &&
        (asTable ? (
          <SeriesTable record={record} data={plot} />
        ) : (
          <MetricChart data={plot} valueUnit={record.valueUnit} label={summary} exemplars={exemplars} />
        ))}
      <div class="metric-panel-foot">
        {record && <ExemplarList rows={exemplars} />}
        {detail && <MetricDetails detail={detail} attrs={controls.attrs} temporalities={temporalities} />}
        {describe.error && !series.error && <ErrorBox error={describe.error} />}
      </div>
    </section>
  );
}

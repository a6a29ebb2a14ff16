/** The metrics with a point in the window, filtered by name and service, paged; a name selects one. */
import type { MetricSeriesRecord, MetricSummaryRecord } from "../../../../shared/query-types.js";
import { BreakableText } from "../../components/breakable-text.js";
import { LoadMore } from "../../components/load-more.js";
import { NameList } from "../../components/name-list.js";
import { formatAgo, formatDateTime, isoToMs } from "../../format/time.js";
import type { PagedState } from "../../live/use-paged-query.js";
import { Link } from "../../routing/link.js";
import { setQuery } from "../../routing/router.js";
import { typeLabel } from "./metric-kinds.js";
import type { MetricControls } from "./metric-query.js";
import { isCharted, selectMetricHref, typeChoosing } from "./metric-query.js";

function MetricFilters({ controls }: { controls: MetricControls }) {
  const commit = (name: string) => (event: Event) =>
    setQuery({ [name]: (event.currentTarget as HTMLInputElement).value.trim() }, { replace: true });
  return (
    <div class="filters">
      <label>
        Name contains
        <input type="search" name="match" value={controls.match ?? ""} onChange={commit("match")} placeholder="http." />
      </label>
      <label>
        Service
        <input type="search" name="service" value={controls.service ?? ""} onChange={commit("service")} />
      </label>
    </div>
  );
}

function EmptyList({ controls }: { controls: MetricControls }) {
  if (controls.match || controls.service) {
    return (
      <p class="muted empty">
        No metric{controls.match ? ` whose name contains “${controls.match}”` : ""}
        {controls.service ? ` from service ${controls.service}` : ""} in the last {controls.lookback}.
      </p>
    );
  }
  return (
    <div class="muted empty">
      <p>No metrics in the last {controls.lookback}.</p>
      <p>
        Send OTLP metrics to <code>{`${location.origin}/v1/metrics`}</code> (OTLP/HTTP, JSON or protobuf), e.g. set{" "}
        <code>OTEL_EXPORTER_OTLP_ENDPOINT={location.origin}</code> in your app, or widen the window.
      </p>
    </div>
  );
}

function MetricRow({
  metric,
  query,
  selected,
  type,
}: {
  metric: MetricSummaryRecord;
  query: URLSearchParams;
  selected: boolean;
  /** The type that picks this row's identity among others of its name. */
  type: string | undefined;
}) {
  const last = isoToMs(metric.lastTime);
  return (
    <tr class={selected ? "selected" : undefined}>
      <td class="metric-name">
        <Link href={selectMetricHref(query, metric.name, type)} aria-current={selected ? "page" : undefined}>
          <BreakableText text={metric.name} />
        </Link>
        <div class="muted metric-services">
          <NameList names={metric.services} />
        </div>
      </td>
      <td>
        {typeLabel(metric)}
        {metric.unit && (
          <div class="mono muted metric-unit">
            <bdi>{metric.unit}</bdi>
          </div>
        )}
      </td>
      <td class="num">{metric.seriesCount}</td>
      <td class="num">{metric.pointCount}</td>
      <td class="num" title={formatDateTime(last)}>
        {formatAgo(last)}
      </td>
    </tr>
  );
}

export function MetricList({
  controls,
  query,
  paged,
  charted,
}: {
  controls: MetricControls;
  query: URLSearchParams;
  paged: PagedState<MetricSummaryRecord>;
  /** The identity the chart shows, once the collector has answered. */
  charted: MetricSeriesRecord | undefined;
}) {
  return (
    <section class="metric-list" aria-label="Metric list">
      <MetricFilters controls={controls} />
      {paged.loading && paged.items.length === 0 && !paged.error && <p class="muted">Loading metrics…</p>}
      {!paged.loading && !paged.error && paged.items.length === 0 && <EmptyList controls={controls} />}
      {paged.items.length > 0 && (
        <>
          <table class="data metric-table" aria-label="Metrics">
            <thead>
              <tr>
                <th scope="col">Metric · services</th>
                <th scope="col">Type · unit</th>
                <th scope="col" class="num">
                  Series
                </th>
                <th scope="col" class="num">
                  Points
                </th>
                <th scope="col" class="num">
                  Last
                </th>
              </tr>
            </thead>
            <tbody>
              {paged.items.map((metric) => (
                <MetricRow
                  key={`${metric.name} ${metric.type} ${metric.unit}`}
                  metric={metric}
                  query={query}
                  selected={isCharted(metric, paged.items, controls.name, charted)}
                  type={typeChoosing(metric, paged.items)}
                />
              ))}
            </tbody>
          </table>
          <LoadMore paged={paged} noun="metrics" />
        </>
      )}
    </section>
  );
}

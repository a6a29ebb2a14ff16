/**
 * Services: each service seen in the window with its root traces' rate, error rate and p95,
 * newest activity first; a service opens the traces it roots. One refresh is four requests
 * (the services and three trace stats), so it refreshes every 4 s to stay at one request a
 * second on average.
 */
import { uiPath } from "../../../../shared/ui-links.js";
import { query } from "../../api/query.js";
import { ErrorBox } from "../../components/error-box.js";
import { LiveToggle } from "../../components/live-toggle.js";
import { TimeRange } from "../../components/time-range.js";
import { ViewHeader } from "../../components/view-header.js";
import { serviceColour } from "../../format/service-colour.js";
import { formatAgo, formatDateTime, formatDuration, isoDateTime } from "../../format/time.js";
import { useLive } from "../../live/live-state.js";
import { useQuery } from "../../live/use-query.js";
import { Link } from "../../routing/link.js";
import { lookbackOf } from "../../routing/lookback.js";
import { navigate, type Route } from "../../routing/router.js";
import { formatPercent, formatRate, type ServiceRow, serviceRows } from "./service-rows.js";
import "./services.css";

/** Four requests per refresh, at most one a second. */
const REFRESH_MS = 4000;

async function loadServices(lookback: string, signal: AbortSignal): Promise<ServiceRow[]> {
  const stats = (agg: "count" | "error_rate" | "p95_duration") =>
    query("traceStats", { groupBy: "service", agg, lookback }, signal).then((page) => page.data);
  const [services, count, errorRate, p95] = await Promise.all([
    query("listServices", { lookback }, signal),
    stats("count"),
    stats("error_rate"),
    stats("p95_duration"),
  ]);
  return serviceRows(services.data, { count, errorRate, p95 }, lookback);
}

const DASH = <span class="muted">–</span>;

function ServiceTableRow({ row, now, lookback }: { row: ServiceRow; now: number; lookback: string | null }) {
  // The traces open over the window the row was computed for, as the URL gives it.
  const href = uiPath("traces", { service: row.name, lookback });
  return (
    // The whole row opens the service's traces; the name is the link a keyboard reaches.
    <tr
      onClick={(event) => {
        if (!(event.target as Element).closest("a")) navigate(href);
      }}
    >
      <th scope="row">
        <Link href={href} class="service-link" aria-label={`Traces of ${row.name}`}>
          <span class="swatch" aria-hidden="true" style={{ background: serviceColour(row.name) }} />
          <bdi>{row.name}</bdi>
        </Link>
      </th>
      <td class="num" title={row.traces === undefined ? "no traces rooted here" : `${row.traces} traces`}>
        {row.ratePerSecond === undefined ? DASH : formatRate(row.ratePerSecond)}
      </td>
      <td class={`num${row.errorRate ? " status-error" : ""}`}>
        {row.errorRate === undefined ? DASH : formatPercent(row.errorRate)}
      </td>
      <td class="num">{row.p95Ms === undefined ? DASH : formatDuration(row.p95Ms)}</td>
      <td class="num">
        <time dateTime={isoDateTime(row.lastSeenMs)} title={formatDateTime(row.lastSeenMs)}>
          {formatAgo(row.lastSeenMs, now)}
        </time>
      </td>
    </tr>
  );
}

export function ServicesView({ route }: { route: Route }) {
  const lookback = lookbackOf(route.query);
  const [live] = useLive();
  const rows = useQuery(`services?${lookback}`, (signal) => loadServices(lookback, signal), {
    live,
    intervalMs: REFRESH_MS,
  });
  const now = rows.updatedAt ?? Date.now();
  return (
    <section class="view services-view" aria-label="Services">
      <ViewHeader title="Services">
        <TimeRange query={route.query} />
        <LiveToggle updatedAt={rows.updatedAt} />
      </ViewHeader>
      <ErrorBox error={rows.error} />
      {rows.data === undefined ? (
        rows.loading && <p class="muted">Loading services…</p>
      ) : rows.data.length === 0 ? (
        <div class="empty-state">
          <p>No service sent telemetry in the last {lookback}.</p>
          <p class="muted">
            Point an OpenTelemetry SDK at this collector (OTLP/HTTP at <code>{location.origin}/v1/traces</code>, or
            gRPC), or choose a longer time range.
          </p>
        </div>
      ) : (
        <table class="data services-table" aria-label={`Services in the last ${lookback}`}>
          <thead>
            <tr>
              <th scope="col">Service</th>
              <th scope="col" class="num" title="Traces per second rooted in the service">
                Requests
              </th>
              <th scope="col" class="num" title="Share of the service's root traces that failed">
                Errors
              </th>
              <th scope="col" class="num" title="95th percentile of root trace durations">
                p95
              </th>
              <th scope="col" class="num">
                Last activity
              </th>
            </tr>
          </thead>
          <tbody>
            {rows.data.map((row) => (
              <ServiceTableRow key={row.name} row={row} now={now} lookback={route.query.get("lookback")} />
            ))}
          </tbody>
        </table>
      )}
      {rows.data !== undefined && rows.data.length > 0 && (
        <p class="muted table-note">
          Figures are for traces rooted in the service over the last {lookback}; a dash: the service only appears inside
          other services' traces.
        </p>
      )}
    </section>
  );
}

/**
 * The log search of `obs logs` as a live tail: newest first, the first page asked again each
 * second while live (and while no further page is shown), new rows briefly marked; older pages
 * with the API's cursors. Filters live in the query string (log-filters.ts).
 */
import { useState } from "preact/hooks";
import type { LogRecord } from "../../../../shared/api-records.js";
import { uiPath } from "../../../../shared/ui-links.js";
import { apiHref, query } from "../../api/query.js";
import { ErrorBox } from "../../components/error-box.js";
import { LiveToggle } from "../../components/live-toggle.js";
import { LoadMore } from "../../components/load-more.js";
import { TimeRange } from "../../components/time-range.js";
import { ViewHeader } from "../../components/view-header.js";
import { useLive } from "../../live/live-state.js";
import { usePagedQuery } from "../../live/use-paged-query.js";
import { Link } from "../../routing/link.js";
import { lookbackOf } from "../../routing/lookback.js";
import type { Route } from "../../routing/router.js";
import { LogFilterForm } from "./log-filter-form.js";
import { hasFilters, logRequestOf } from "./log-filters.js";
import { LogRow } from "./log-row.js";
import { useFreshRows } from "./use-fresh-rows.js";
import "./logs.css";

export function LogsView({ route }: { route: Route }) {
  const [live] = useLive();
  const lookback = lookbackOf(route.query);
  const request = logRequestOf(route.query, lookback);
  const key = apiHref("searchLogs", request);
  const paged = usePagedQuery<LogRecord>(
    key,
    (cursor, signal) => query("searchLogs", cursor ? { ...request, cursor } : request, signal),
    { live },
  );
  const [expanded, setExpanded] = useState<ReadonlySet<string>>(new Set());
  const fresh = useFreshRows(
    key,
    paged.items.map((log) => log.logId),
    paged.firstPage,
  );
  const toggle = (logId: string) => {
    const next = new Set(expanded);
    if (!next.delete(logId)) next.add(logId);
    setExpanded(next);
  };
  const filtered = hasFilters(route.query);

  return (
    <section class="view logs-view" aria-label="Logs">
      <ViewHeader title="Logs">
        <TimeRange query={route.query} />
        <LiveToggle updatedAt={paged.updatedAt} />
      </ViewHeader>
      <LogFilterForm params={route.query} />
      <ErrorBox error={paged.error} />
      {paged.firstPage === undefined ? (
        !paged.error && (
          <p class="muted" aria-busy="true">
            Loading logs…
          </p>
        )
      ) : paged.items.length === 0 ? (
        <div class="empty-state">
          {filtered ? (
            <p>
              No logs match these filters in the last {lookback}.{" "}
              <Link href={uiPath("logs", { lookback })}>Clear the filters</Link> or widen the window.
            </p>
          ) : (
            <p>
              No logs in the last {lookback}. Point an OpenTelemetry SDK's OTLP exporter at this collector (
              <code>OTEL_EXPORTER_OTLP_ENDPOINT={location.origin}</code>) or widen the window.
            </p>
          )}
        </div>
      ) : (
        <>
          {paged.items.length > (paged.firstPage?.data.length ?? 0) && live && (
            <p class="cap-notice">
              Live updates wait while older pages are shown.{" "}
              <button type="button" onClick={paged.reset}>
                Back to the newest
              </button>
            </p>
          )}
          <div class="table-scroll">
            <table class="data logs-table">
              <caption class="visually-hidden">Logs, newest first</caption>
              <thead>
                <tr>
                  <th scope="col">
                    <span class="visually-hidden">Details</span>
                  </th>
                  <th scope="col" class="num">
                    Time
                  </th>
                  <th scope="col">Severity</th>
                  <th scope="col">Service</th>
                  <th scope="col">Body</th>
                  <th scope="col">Trace</th>
                </tr>
              </thead>
              <tbody>
                {paged.items.map((log) => (
                  <LogRow
                    key={log.logId}
                    log={log}
                    lookback={lookback}
                    expanded={expanded.has(log.logId)}
                    fresh={fresh.has(log.logId)}
                    onToggle={() => toggle(log.logId)}
                  />
                ))}
              </tbody>
            </table>
          </div>
          <LoadMore paged={paged} noun={paged.items.length === 1 ? "log" : "logs"} />
        </>
      )}
    </section>
  );
}

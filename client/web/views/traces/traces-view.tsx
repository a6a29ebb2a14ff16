/**
 * Traces: the search of `obs traces` (its filters in the URL under the API's names), a scatter
 * of duration over start time, and the list, paged with the API's cursors. The first page is
 * live (new traces appear at the top) until a further page is loaded or updates are paused.
 */
import { apiHref, query } from "../../api/query.js";
import { ErrorBox } from "../../components/error-box.js";
import { LiveToggle } from "../../components/live-toggle.js";
import { LoadMore } from "../../components/load-more.js";
import { TimeRange } from "../../components/time-range.js";
import { ViewHeader } from "../../components/view-header.js";
import { useLive } from "../../live/live-state.js";
import { usePagedQuery } from "../../live/use-paged-query.js";
import { LOOKBACKS, lookbackOf } from "../../routing/lookback.js";
import { type Route, setQuery } from "../../routing/router.js";
import { TraceFilters } from "./trace-filters.js";
import { TraceScatter } from "./trace-scatter.js";
import { describeSearch, tracesRequestOf } from "./trace-search.js";
import { TraceTable } from "./trace-table.js";
import "./traces.css";

/** The next longer window of the time range's choices, if there is one. */
function widerWindow(lookback: string): string | undefined {
  const at = LOOKBACKS.indexOf(lookback as (typeof LOOKBACKS)[number]);
  return at >= 0 ? LOOKBACKS[at + 1] : undefined;
}

function EmptyResult({ search, lookback }: { search: URLSearchParams; lookback: string }) {
  const wider = widerWindow(lookback);
  return (
    <div class="empty-state" role="status">
      <p>
        No traces for {describeSearch(search)} in the last {lookback}.
      </p>
      <p class="muted">
        {wider ? (
          <>
            <button type="button" onClick={() => setQuery({ lookback: wider })}>
              Search the last {wider}
            </button>{" "}
            or remove a filter.
          </>
        ) : (
          "Remove a filter: the window is already the longest the collector keeps for a search."
        )}
      </p>
    </div>
  );
}

export function TracesView({ route }: { route: Route }) {
  const lookback = lookbackOf(route.query);
  const request = tracesRequestOf(route.query);
  const [live] = useLive();
  const key = apiHref("listTraces", request);
  const paged = usePagedQuery(
    key,
    (cursor, signal) => query("listTraces", cursor ? { ...request, cursor } : request, signal),
    { live, idOf: (trace) => trace.traceId },
  );
  const traces = paged.items;
  return (
    <section class="view traces-view" aria-label="Traces">
      <ViewHeader title="Traces">
        <TimeRange query={route.query} />
        <LiveToggle updatedAt={paged.updatedAt} />
      </ViewHeader>
      <TraceFilters search={route.query} lookback={lookback} />
      <ErrorBox error={paged.error} />
      {paged.firstPage === undefined ? (
        paged.loading && !paged.error && <p class="muted">Searching traces…</p>
      ) : traces.length === 0 ? (
        <EmptyResult search={route.query} lookback={lookback} />
      ) : (
        <>
          <TraceScatter traces={traces} />
          <TraceTable traces={traces} label={`Traces for ${describeSearch(route.query)} in the last ${lookback}`} />
          <LoadMore paged={paged} noun={traces.length === 1 ? "trace" : "traces"} />
          {live && paged.items.length > paged.firstPage.data.length && (
            <p class="muted live-note">Live updates wait while more than the first page is shown.</p>
          )}
        </>
      )}
    </section>
  );
}

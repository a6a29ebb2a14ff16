/**
 * The Trace view (`/ui/traces/:traceId`): the summary, the filters, the waterfall with the
 * selected span's detail beside it, and the trace's logs below. The address holds the state a
 * link reproduces: `span=` (the selection), `service=` and `q=` (the filters). The pure parts
 * (tree, rows, ticks, window, keys) are the .ts modules beside this file.
 */
import { useCallback, useEffect, useMemo, useRef, useState } from "preact/hooks";
import { uiPath } from "../../../../shared/ui-links.js";
import { query } from "../../api/query.js";
import { ErrorBox } from "../../components/error-box.js";
import { ViewHeader } from "../../components/view-header.js";
import { useQuery } from "../../live/use-query.js";
import { Link } from "../../routing/link.js";
import { textOf } from "../../routing/query-filters.js";
import { type Route, setQuery } from "../../routing/router.js";
import { criticalSegments, type Segment } from "./critical-segments.js";
import { GroupDetail } from "./group-detail.js";
import { SpanDetail } from "./span-detail.js";
import { TraceFilters } from "./trace-filters.js";
import { TraceHeader } from "./trace-header.js";
import { logsBySpan, traceLogLines } from "./trace-log-lines.js";
import { TraceLogs } from "./trace-logs.js";
import { traceExtentMs } from "./trace-spans.js";
import { traceTree } from "./trace-tree.js";
import { TRACE_SPAN_CAP, useTrace } from "./use-trace.js";
import { Waterfall } from "./waterfall.js";
import { INITIAL_EXPAND, revealSpan, toggleRow, type WaterfallRow, waterfallRows } from "./waterfall-rows.js";
import "./trace.css";

const NO_SEGMENTS = new Map<number, Segment[]>();

/**
 * Keyed by the trace id: a link to another trace mounts a fresh view, so nothing of the last
 * trace (rows opened or closed, span ids two traces share, the waterfall's scroll and marks)
 * carries over, and its rows are never drawn under the new trace's address.
 */
export function TraceView({ route }: { route: Route }) {
  const traceId = route.traceId ?? "";
  return <TraceOfId key={traceId} traceId={traceId} route={route} />;
}

function TraceOfId({ traceId, route }: { traceId: string; route: Route }) {
  const load = useTrace(traceId);
  const service = textOf(route.query, "service");
  const text = textOf(route.query, "q");
  const selectedKey = textOf(route.query, "span");
  const [expand, setExpand] = useState(INITIAL_EXPAND);
  const treeElement = useRef<HTMLElement | null>(null);

  const logs = useQuery(`trace-logs:${traceId}`, (signal) => query("traceLogs", { traceId, limit: 500 }, signal));
  const tree = useMemo(() => traceTree(load.spans), [load.spans]);
  const { rows, matches } = useMemo(
    () => waterfallRows(tree, load.spans, expand, { service, text }),
    [tree, load.spans, expand, service, text],
  );
  const extentMs = useMemo(() => traceExtentMs(load.spans, load.summary?.durationMs ?? 0), [load.spans, load.summary]);
  // Drawn once every page is in (the path of a partly loaded trace would be wrong), and after the
  // rows are painted: the walk takes a while on a large trace and the rows need not wait for it.
  const [critical, setCritical] = useState(NO_SEGMENTS);
  useEffect(() => {
    setCritical(NO_SEGMENTS);
    if (!load.complete || load.spans.length === 0) return;
    const timer = setTimeout(() => setCritical(criticalSegments(load.spans, load.origin)), 0);
    return () => clearTimeout(timer);
  }, [load.complete, load.spans, load.origin]);
  const logLines = useMemo(() => traceLogLines(logs.data?.data ?? [], load.origin), [logs.data, load.origin]);
  const markers = useMemo(() => logsBySpan(logLines), [logLines]);

  const select = useCallback((key: string) => setQuery({ span: key }, { replace: true }), []);

  // A selection from outside (a deep link, a log) opens what hides it.
  useEffect(() => {
    const index = selectedKey === undefined ? undefined : tree.indexOf.get(selectedKey);
    if (index !== undefined) setExpand((current) => revealSpan(current, tree, load.spans, index));
  }, [selectedKey, tree, load.spans]);

  const toggle = useCallback(
    (row: WaterfallRow) => {
      setExpand((current) => toggleRow(current, row));
      // Closing a row that holds the selection moves the selection onto it.
      const selected = selectedKey === undefined ? undefined : tree.indexOf.get(selectedKey);
      if (!row.expanded || selected === undefined) return;
      let inside = row.group ? row.group.members.includes(selected) : false;
      for (let at = tree.parent[selected] as number; !inside && at >= 0; at = tree.parent[at] as number)
        inside = at === row.index;
      if (inside) select(row.key);
    },
    [selectedKey, tree, select],
  );

  useEffect(() => {
    if (!load.complete || load.spans.length === 0) return;
    requestAnimationFrame(() => performance.mark("obs:waterfall-complete"));
  }, [load.complete, load.spans.length]);
  const painted = useCallback(() => performance.mark("obs:waterfall-painted"), []);

  if (load.error || (load.loading && !load.summary)) {
    return (
      <section class="view trace-view" aria-label="Trace">
        <ViewHeader title="Trace" />
        {load.error ? (
          <>
            <ErrorBox error={load.error} />
            <p>
              <Link href={uiPath("traces")}>← Back to Traces</Link>
            </p>
          </>
        ) : (
          <p class="muted">Loading trace {traceId}…</p>
        )}
      </section>
    );
  }
  const summary = load.summary;
  if (!summary) return null;
  const selectedRow = rows.find((row) => row.key === selectedKey);
  return (
    <section class="view trace-view" aria-label="Trace">
      <TraceHeader summary={summary} />
      <TraceFilters
        services={summary.services}
        service={service}
        text={text}
        matches={matches}
        total={load.spans.length}
        onLeave={() => {
          treeElement.current = document.querySelector<HTMLElement>(".wf-scroll");
          treeElement.current?.focus();
        }}
      />
      {!load.complete && (
        <p class="trace-progress" aria-live="polite">
          Loading spans: {load.received.toLocaleString("en-US")} of {summary.spanCount.toLocaleString("en-US")}… the
          critical path is drawn once all are in.
        </p>
      )}
      {load.capped && (
        <div class="cap-notice" role="status">
          Showing the first {load.spans.length.toLocaleString("en-US")} of {summary.spanCount.toLocaleString("en-US")}{" "}
          spans: the view stops at {TRACE_SPAN_CAP.toLocaleString("en-US")}. Use <code>obs trace {traceId}</code> or the
          API's span pages for the rest.
        </div>
      )}
      {load.pageError && (
        <div class="cap-notice" role="status">
          Stopped at {load.spans.length.toLocaleString("en-US")} spans: {load.pageError.message}
        </div>
      )}
      <div class={`trace-body${selectedKey ? " with-detail" : ""}`}>
        {rows.length === 0 ? (
          <p class="muted wf-empty">
            {load.spans.length === 0
              ? "This trace has no spans in the store yet."
              : "No span matches the filter; clear it (Escape in the box) to see them all."}
          </p>
        ) : (
          <Waterfall
            spans={load.spans}
            rows={rows}
            extentMs={extentMs}
            critical={critical}
            logsBySpan={markers}
            selectedKey={selectedKey}
            onSelect={select}
            onToggle={toggle}
            onPainted={painted}
          />
        )}
        {selectedKey &&
          (selectedRow?.group ? (
            <GroupDetail row={selectedRow} spans={load.spans} />
          ) : selectedKey.startsWith("group:") ? null : (
            <SpanDetail
              traceId={traceId}
              spanId={selectedKey}
              heldHere={tree.indexOf.has(selectedKey)}
              origin={load.origin}
              onSelect={select}
            />
          ))}
      </div>
      {logs.error ? (
        <ErrorBox error={logs.error} />
      ) : (
        <TraceLogs lines={logLines} truncated={Boolean(logs.data?.meta.nextCursor)} onSelect={select} />
      )}
    </section>
  );
}

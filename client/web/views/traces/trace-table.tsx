/**
 * The trace list: one row per trace, newest first. The duration bar is relative to the
 * longest trace shown, so the page reads at a glance; the row's operation is the link a
 * keyboard reaches, and a click anywhere on the row opens the trace too.
 */
import type { TraceSummary } from "../../../../shared/api-records.js";
import { tracePath } from "../../../../shared/ui-links.js";
import { NameList } from "../../components/name-list.js";
import { serviceColour } from "../../format/service-colour.js";
import { formatClock, formatDateTime, formatDuration, isoDateTime, isoToMs } from "../../format/time.js";
import { Link } from "../../routing/link.js";
import { navigate } from "../../routing/router.js";

function splitMillis(clock: string): [string, string] {
  const dot = clock.lastIndexOf(".");
  return dot < 0 ? [clock, ""] : [clock.slice(0, dot), clock.slice(dot)];
}

function TraceRow({ trace, longestMs }: { trace: TraceSummary; longestMs: number }) {
  const href = tracePath(trace.traceId);
  const startMs = isoToMs(trace.startTime);
  const service = trace.rootServiceName ?? "unknown";
  const failed = trace.status === "error";
  // The milliseconds are dropped on a narrow window (CSS), where the column's width is dear.
  const [clock, millis] = splitMillis(formatClock(startMs));
  const share = longestMs > 0 ? Math.max(trace.durationMs / longestMs, 0.005) : 0;
  return (
    <tr
      class={failed ? "failed" : undefined}
      data-trace-id={trace.traceId}
      onClick={(event) => {
        if (!(event.target as Element).closest("a")) navigate(href);
      }}
    >
      <td class="num start">
        <time dateTime={isoDateTime(startMs)} title={formatDateTime(startMs)}>
          {clock}
          <span class="millis">{millis}</span>
        </time>
      </td>
      <td class="root">
        <span class="root-service">
          <span class="swatch" aria-hidden="true" style={{ background: serviceColour(service) }} />
          <bdi>{service}</bdi>
        </span>
        <Link href={href} class="operation" title={trace.traceId}>
          <bdi>{trace.rootOperation ?? "(no root span)"}</bdi>
        </Link>
      </td>
      <td class="num duration">
        <span class="duration-text">{formatDuration(trace.durationMs)}</span>
        <span class="duration-bar" aria-hidden="true">
          <span style={{ width: `${share * 100}%` }} />
        </span>
      </td>
      <td class="num spans">{trace.spanCount}</td>
      <td class={`num errors${trace.errorCount > 0 ? " status-error" : ""}`}>
        {trace.errorCount > 0 ? (
          <span title={`${trace.errorCount} spans failed`}>
            <span aria-hidden="true">▲ </span>
            {trace.errorCount}
          </span>
        ) : (
          <span class="muted">0</span>
        )}
      </td>
      <td class="services">
        <NameList names={trace.services} />
      </td>
    </tr>
  );
}

export function TraceTable({ traces, label }: { traces: readonly TraceSummary[]; label: string }) {
  const longestMs = Math.max(0, ...traces.map((trace) => trace.durationMs));
  return (
    <table class="data trace-table" aria-label={label}>
      <thead>
        <tr>
          <th scope="col" class="num">
            Start
          </th>
          <th scope="col">Root</th>
          <th scope="col" class="num">
            Duration
          </th>
          <th scope="col" class="num spans">
            Spans
          </th>
          <th scope="col" class="num">
            Errors
          </th>
          <th scope="col" class="services">
            Services
          </th>
        </tr>
      </thead>
      <tbody>
        {traces.map((trace) => (
          <TraceRow key={trace.traceId} trace={trace} longestMs={longestMs} />
        ))}
      </tbody>
    </table>
  );
}

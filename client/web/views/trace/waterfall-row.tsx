/**
 * One row of the waterfall: the name column (indent, open/close toggle, service colour, name,
 * error mark, repeat count) and the time column (the bar at its offset, the critical path's
 * stretches on it, the span's logs as markers, the duration). Positions are percentages of the
 * trace's length, set through CSSOM (the CSP forbids style markup, not style properties).
 */
import { serviceColour } from "../../format/service-colour.js";
import { formatDuration } from "../../format/time.js";
import type { Segment } from "./critical-segments.js";
import type { TraceLogLine } from "./trace-log-lines.js";
import type { WaterfallSpan } from "./trace-spans.js";
import type { WaterfallRow as Row } from "./waterfall-rows.js";

/** Deeper rows stop indenting here, so a 20,000-deep chain keeps its names on screen. */
const MAX_INDENT_DEPTH = 24;
const INDENT_PX = 14;

export interface RowProps {
  row: Row;
  span: WaterfallSpan;
  extentMs: number;
  selected: boolean;
  critical: Segment[] | undefined;
  logs: TraceLogLine[] | undefined;
  onSelect: (key: string) => void;
  onToggle: (row: Row) => void;
}

export function rowDomId(key: string): string {
  return `wf-row-${key.replace(/[^\w-]/g, "_")}`;
}

function pct(ms: number, extentMs: number): string {
  return `${Math.max(0, Math.min(100, (ms / extentMs) * 100))}%`;
}

/** The screen reader's line for a row: "charge, payments, 75 ms, error". */
export function rowLabel(row: Row, span: WaterfallSpan, logCount: number): string {
  const parts = row.group
    ? [`${span.name} ×${row.group.summary.count}`, span.service, `${formatDuration(row.group.summary.totalMs)} in all`]
    : [span.name, span.service, formatDuration(span.durationMs)];
  const errors = row.group ? row.group.summary.errors : span.status === "error" ? 1 : 0;
  if (errors > 0) parts.push(row.group ? `${errors} errors` : "error");
  if (logCount > 0) parts.push(`${logCount} log${logCount === 1 ? "" : "s"}`);
  return parts.join(", ");
}

export function WaterfallRowView({ row, span, extentMs, selected, critical, logs, onSelect, onToggle }: RowProps) {
  const summary = row.group?.summary;
  const startMs = summary ? summary.startMs : span.offsetMs;
  const lengthMs = summary ? summary.endMs - summary.startMs : span.durationMs;
  const error = summary ? summary.errors > 0 : span.status === "error";
  const colour = serviceColour(span.service);
  const labelPlace = durationPlace((startMs / extentMs) * 100, ((startMs + lengthMs) / extentMs) * 100);
  const classes = ["wf-row", selected ? "selected" : "", row.match ? "" : "context", error ? "error" : ""];
  return (
    // biome-ignore lint/a11y/useKeyWithClickEvents: the tree takes the keys for its rows (aria-activedescendant)
    <div
      id={rowDomId(row.key)}
      tabIndex={-1}
      class={classes.join(" ")}
      role="treeitem"
      aria-level={row.depth + 1}
      aria-expanded={row.expandable ? row.expanded : undefined}
      aria-selected={selected}
      aria-label={rowLabel(row, span, logs?.length ?? 0)}
      data-key={row.key}
      onClick={(event) => {
        // The tree keeps the focus (and so the keys) whichever row is clicked.
        (event.currentTarget as HTMLElement).closest<HTMLElement>("[role=tree]")?.focus();
        onSelect(row.key);
      }}
    >
      <div class="wf-name" style={{ paddingLeft: `${Math.min(row.depth, MAX_INDENT_DEPTH) * INDENT_PX + 4}px` }}>
        {row.expandable ? (
          <button
            type="button"
            class="wf-toggle"
            tabIndex={-1}
            aria-hidden="true"
            onClick={(event) => {
              event.stopPropagation();
              onToggle(row);
            }}
          >
            {row.expanded ? "▾" : "▸"}
          </button>
        ) : (
          <span class="wf-toggle-space" />
        )}
        <span class="wf-swatch" style={{ backgroundColor: colour }} />
        {error && (
          <span class="wf-error-mark" title="error">
            !
          </span>
        )}
        <span class="wf-label" title={`${span.service}: ${span.name}`}>
          <bdi class="wf-service">{span.service}</bdi> <bdi>{span.name}</bdi>
          {summary && <span class="wf-count"> ×{summary.count}</span>}
        </span>
      </div>
      <div class="wf-time">
        <div
          class={`wf-bar${error ? " error" : ""}`}
          style={{ left: pct(startMs, extentMs), width: pct(lengthMs, extentMs), backgroundColor: error ? "" : colour }}
        />
        {critical?.map(([from, to]) => (
          <div key={from} class="wf-critical" style={{ left: pct(from, extentMs), width: pct(to - from, extentMs) }} />
        ))}
        {logs?.map((log) => (
          <span
            key={log.logId}
            class={`wf-log sev-${log.level}`}
            style={{ left: pct(log.offsetMs, extentMs) }}
            title={`${log.severity} ${formatDuration(log.offsetMs)}: ${log.body}`}
          />
        ))}
        <span class={`wf-duration ${labelPlace.side}`} style={labelPlace.style}>
          {summary
            ? `${formatDuration(summary.totalMs)} total, ${formatDuration(summary.avgMs)} avg`
            : formatDuration(span.durationMs)}
        </span>
      </div>
    </div>
  );
}

/** Where the duration goes: after the bar, before it when the bar ends near the right edge, or inside a wide bar. */
function durationPlace(startPct: number, endPct: number): { side: string; style: Record<string, string> } {
  if (endPct <= 75) return { side: "after", style: { left: `${endPct}%` } };
  if (startPct >= 25) return { side: "before", style: { right: `${100 - startPct}%` } };
  return { side: "inside", style: { right: `${Math.max(0, 100 - endPct)}%` } };
}

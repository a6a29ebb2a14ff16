/**
 * `obs trace` as a person reads it: a text waterfall. Each span is one line with its start
 * offset from the trace's start, its duration, a bar placed and scaled on the trace's timeline,
 * and the span tree's indentation; error spans are marked. Correlated logs, when included,
 * follow on the same timeline. Pure: records in, lines out.
 *
 * A span tree can be tens of thousands of levels deep (a runaway recursion, a retry chain), so
 * the tree is walked with an explicit stack, never by recursion.
 */
import type { LogRecord, SpanTreeNode, TraceSummary } from "../../shared/api-records.js";
import { logBodyText } from "../../shared/log-text.js";
import { formatDuration } from "./duration-text.js";
import { safeText } from "./table.js";

/** `GET /api/traces/:id` as the trace command reads it. */
export type TraceView = TraceSummary & { tree: SpanTreeNode[]; logs?: LogRecord[]; logsTruncated?: boolean };

export interface WaterfallOptions {
  /** The terminal's width in columns; the bars take a share of it. */
  columns: number;
}

/** Past this depth the indentation stops growing and the depth is written as a number. */
export const MAX_INDENT_DEPTH = 24;

const SEVERITY_NAMES = ["UNSPECIFIED", "TRACE", "DEBUG", "INFO", "WARN", "ERROR", "FATAL"];

/** The record's severity text, else its number's name (OTLP: 1-4 TRACE ... 21-24 FATAL). */
export function severityOf(log: Pick<LogRecord, "severityText" | "severityNumber">): string {
  return log.severityText ?? SEVERITY_NAMES[Math.ceil(log.severityNumber / 4)] ?? String(log.severityNumber);
}

/** `2026-01-02T03:04:05.123456789Z` -> nanoseconds since the epoch, without float rounding. */
export function isoToNs(iso: string): bigint {
  const match = /^(.*T\d{2}:\d{2}:\d{2})(?:\.(\d{1,9}))?Z$/.exec(iso);
  if (!match) return BigInt(Date.parse(iso)) * 1_000_000n;
  const seconds = BigInt(Date.parse(`${match[1]}Z`)) / 1000n;
  return seconds * 1_000_000_000n + BigInt((match[2] ?? "").padEnd(9, "0"));
}

/** One span in display order, with its depth in the tree. */
interface Row {
  node: SpanTreeNode;
  depth: number;
}

/** A tree node as an older collector sends it: descendants nested under `children`. */
type MaybeNested = SpanTreeNode & { children?: SpanTreeNode[] };

/**
 * Pre-order (each span, then its children by start time), iteratively. The API sends the tree
 * as a flat list already in that order, each node with its `depth`; a collector from before
 * that change nests `children` instead, which this walks with an explicit stack.
 */
export function displayOrder(tree: readonly SpanTreeNode[]): Row[] {
  const rows: Row[] = [];
  const stack: Row[] = [];
  for (let i = tree.length - 1; i >= 0; i -= 1) {
    const node = tree[i] as SpanTreeNode;
    stack.push({ node, depth: node.depth });
  }
  for (let row = stack.pop(); row !== undefined; row = stack.pop()) {
    rows.push(row);
    const children = (row.node as MaybeNested).children ?? [];
    for (let i = children.length - 1; i >= 0; i -= 1)
      stack.push({ node: children[i] as SpanTreeNode, depth: row.depth + 1 });
  }
  return rows;
}

function indentOf(depth: number): string {
  return depth <= MAX_INDENT_DEPTH ? "  ".repeat(depth) : `${"  ".repeat(MAX_INDENT_DEPTH)}(depth ${depth}) `;
}

/** The bar of one span: `width` cells for the whole trace, at least one cell per span. */
export function timelineBar(
  offsetNs: bigint,
  durationNs: bigint,
  totalNs: bigint,
  width: number,
  fill: string,
): string {
  const total = totalNs > 0n ? totalNs : 1n;
  const cells = BigInt(width);
  const clamp = (cell: bigint) => (cell < 0n ? 0n : cell > cells ? cells : cell);
  let from = clamp((offsetNs * cells) / total);
  let to = clamp(((offsetNs + durationNs) * cells + total - 1n) / total);
  if (from >= cells) from = cells - 1n;
  if (to <= from) to = from + 1n;
  return `${" ".repeat(Number(from))}${fill.repeat(Number(to - from))}${" ".repeat(width - Number(to))}`;
}

/** Bars get a third of the terminal, within bounds that keep them useful and lines short. */
export function barWidthFor(columns: number): number {
  return Math.max(10, Math.min(80, Math.floor(columns / 3)));
}

export function renderTraceWaterfall(trace: TraceView, options: WaterfallOptions): string[] {
  const lines = [
    `trace ${trace.traceId}  ${trace.status}  ${formatDuration(trace.durationMs)}  ${trace.spanCount} spans  services: ${trace.services.map(safeText).join(", ")}`,
  ];
  const startNs = isoToNs(trace.startTime);
  const totalNs = isoToNs(trace.endTime) - startNs;
  const width = barWidthFor(options.columns);
  const rows = displayOrder(trace.tree).map(({ node, depth }) => {
    const offsetNs = isoToNs(node.startTime) - startNs;
    const durationNs = BigInt(Math.round(node.durationMs * 1e6));
    const error = node.status === "error";
    return {
      offset: `+${formatDuration(Number(offsetNs) / 1e6)}`,
      duration: formatDuration(node.durationMs),
      bar: timelineBar(offsetNs, durationNs, totalNs, width, error ? "#" : "="),
      span: `${indentOf(depth)}${error ? "! " : ""}${safeText(node.operation)}  [${safeText(node.serviceName)}]  ${node.spanId}${error ? "  error" : ""}${node.missingParent ? "  (parent missing)" : ""}`,
    };
  });
  const offsetWidth = Math.max("OFFSET".length, ...rows.map((row) => row.offset.length));
  const durationWidth = Math.max("DURATION".length, ...rows.map((row) => row.duration.length));
  lines.push(
    `  ${"OFFSET".padEnd(offsetWidth)}  ${"DURATION".padStart(durationWidth)}  ${"TIMELINE".padEnd(width + 2)}  SPAN`,
  );
  for (const row of rows) {
    lines.push(
      `  ${row.offset.padEnd(offsetWidth)}  ${row.duration.padStart(durationWidth)}  |${row.bar}|  ${row.span}`,
    );
  }
  if (Array.isArray(trace.logs)) lines.push(...logLines(trace.logs, trace.logsTruncated === true, startNs));
  return lines;
}

/** Correlated logs on the trace's timeline, oldest first, one line each. */
function logLines(logs: readonly LogRecord[], truncated: boolean, startNs: bigint): string[] {
  const title = `correlated logs (${logs.length}${truncated ? "+" : ""})`;
  if (logs.length === 0) return [title];
  const ordered = [...logs].sort((a, b) => {
    const delta = isoToNs(a.timestamp) - isoToNs(b.timestamp);
    return delta < 0n ? -1 : delta > 0n ? 1 : 0;
  });
  const rows = ordered.map((log) => ({
    offset: `${isoToNs(log.timestamp) >= startNs ? "+" : "-"}${formatDuration(Math.abs(Number(isoToNs(log.timestamp) - startNs)) / 1e6)}`,
    severity: safeText(severityOf(log)),
    where: `[${safeText(log.serviceName)}]  ${log.spanId ?? "-"}`,
    body: safeText(logBodyText(log.body)),
  }));
  const offsetWidth = Math.max(...rows.map((row) => row.offset.length));
  const severityWidth = Math.max(...rows.map((row) => row.severity.length));
  return [
    title,
    ...rows.map(
      (row) => `  ${row.offset.padEnd(offsetWidth)}  ${row.severity.padEnd(severityWidth)}  ${row.where}  ${row.body}`,
    ),
  ];
}

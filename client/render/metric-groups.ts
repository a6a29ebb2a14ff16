/**
 * `obs metric NAME` as text: a heading with what the numbers are (the metric, its type, the
 * aggregation, the step and the window), then one row per group: its key values, its latest
 * value with the value's unit, its total where the values add up (addsUp), its series count,
 * and a sparkline of the window. Groups that saw
 * a counter reset say how many (the values are not smoothed over it), and groups with exemplars
 * name the newest exemplar's trace, so a spike leads to a trace. Pure.
 */

import { addsUp, totalOf } from "../../shared/metric-routes.js";
import type { MetricDetailRecord, MetricSeriesGroup, MetricSeriesRecord } from "../../shared/query-types.js";
import { sparkline } from "./sparkline.js";
import { renderTable, safeText } from "./table.js";

/** The sparkline's width: a few hundred buckets in forty columns still show the shape. */
export const SPARKLINE_WIDTH = 40;

export interface MetricGroupsOptions {
  ascii: boolean;
  width?: number;
}

/**
 * A value as the tables print it: whole numbers from 1,000 up (a token count keeps its digits),
 * four significant digits below, then the unit unless it is empty or the dimensionless `1`.
 */
export function formatMetricValue(value: number | null, unit: string): string {
  if (value === null || !Number.isFinite(value)) return "-";
  const text = Math.abs(value) >= 1000 ? String(Math.round(value)) : String(Number(value.toPrecision(4)));
  return unit === "" || unit === "1" ? text : `${text} ${unit}`;
}

/** The heading's telemetry text (name, unit) goes through safeText, as table cells do. */
export function metricHeading(record: MetricSeriesRecord): string {
  const unit = record.unit ? `, ${safeText(record.unit)}` : "";
  return `${safeText(record.name)} (${record.type}${unit})  agg ${record.agg}  step ${record.step}  ${record.from} .. ${record.to}`;
}

/** The key columns: the answer's grouping keys in the order of its first group, or none. */
function groupKeys(groups: readonly MetricSeriesGroup[]): string[] {
  return Object.keys(groups[0]?.group ?? {});
}

export function renderMetricGroups(record: MetricSeriesRecord, options: MetricGroupsOptions): string {
  const heading = metricHeading(record);
  if (record.groups.length === 0) return `${heading}\nno points in the window`;
  const keys = groupKeys(record.groups);
  const withResets = record.groups.some((group) => group.resets > 0);
  const withTraces = record.groups.some((group) => group.exemplarTraceIds.length > 0);
  const withTotal = addsUp(record);
  const headers = [
    ...(keys.length ? keys.map((key) => key.toUpperCase()) : ["GROUP"]),
    "LATEST",
    ...(withTotal ? ["TOTAL"] : []),
    "SERIES",
    ...(withResets ? ["RESETS"] : []),
    ...(withTraces ? ["EXEMPLAR TRACE"] : []),
    "WINDOW",
  ];
  const width = options.width ?? SPARKLINE_WIDTH;
  const rows = record.groups.map((group) => [
    ...(keys.length ? keys.map((key) => group.group[key] ?? "(none)") : ["(all)"]),
    formatMetricValue(group.latest, record.valueUnit),
    ...(withTotal ? [formatMetricValue(totalOf(group.values), record.valueUnit)] : []),
    group.series,
    ...(withResets ? [group.resets || ""] : []),
    ...(withTraces ? [group.exemplarTraceIds[0] ?? ""] : []),
    // The line keeps its gaps as spaces; quoted so a trailing gap is not trimmed away.
    `|${sparkline(group.values, { width, ascii: options.ascii })}|`,
  ]);
  const lines = [heading, renderTable(headers, rows)];
  // The first bucket starts at a multiple of the step, so it may begin before the window.
  if (withTotal) {
    // The collector orders such groups by their total (metric-answers.ts); the newest bucket ends
    // at the window's end, now, and holds only what came in it so far.
    lines.push(`TOTAL: the buckets' sum, from ${record.buckets[0] ?? record.from}; groups with the largest first`);
    lines.push("LATEST: the newest bucket with a value (the newest of all, still open, holds only what came so far)");
  }
  if (withResets) lines.push("RESETS: counter restarts seen in the window (start time moved or value dropped)");
  return lines.join("\n");
}

/** `obs metric NAME --describe`: the identity, then each attribute key with its values. */
export function renderMetricDetail(record: MetricDetailRecord): string {
  const flags = [
    record.temporality,
    record.monotonic === null ? null : record.monotonic ? "monotonic" : "not monotonic",
  ].filter((flag) => flag !== null);
  // Telemetry text through safeText: a description's newline cannot forge a line of output.
  const lines = [
    `${safeText(record.name)} (${record.type}${record.unit ? `, ${safeText(record.unit)}` : ""}${flags.length ? `, ${flags.join(", ")}` : ""})`,
    ...(record.description ? [safeText(record.description)] : []),
    `services: ${record.services.map(safeText).join(", ") || "-"}  series: ${record.seriesCount}  points: ${record.pointCount}`,
    `first: ${record.firstTime}  last: ${record.lastTime}`,
  ];
  if (record.attributes.length === 0) return [...lines, "no point attributes"].join("\n");
  const rows = record.attributes.map((attribute) => [
    `attr.${attribute.key}`,
    attribute.values.map((value) => `${value.value} (${value.series})`).join(", ") + (attribute.more ? ", ..." : ""),
  ]);
  return [...lines, renderTable(["GROUP BY", "VALUES (SERIES)"], rows)].join("\n");
}

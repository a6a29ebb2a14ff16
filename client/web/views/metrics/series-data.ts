/**
 * A /api/metrics/series answer as the chart, the table and the exemplar list draw it: bucket
 * starts in seconds (uPlot's x), one value array per group with its nulls kept (a bucket with
 * no point, often the last, open one, is a gap, never a zero), a label and a stable colour per
 * group. Pure.
 */
import type { MetricSeriesGroup, MetricSeriesRecord } from "../../../../shared/query-types.js";
import { serviceColour } from "../../format/service-colour.js";

export interface PlotSeries {
  label: string;
  colour: string;
  group: MetricSeriesGroup["group"];
}

export interface PlotData {
  /** Bucket starts, seconds since the epoch. */
  xs: number[];
  /** One array per series, as long as xs; null where the group had no point. */
  ys: (number | null)[][];
  series: PlotSeries[];
}

/** An ISO 8601 time with up to nine fraction digits, as milliseconds since the epoch. */
export function isoToMs(iso: string): number {
  const match = /^(.*T\d\d:\d\d:\d\d)(?:\.(\d+))?(Z|[+-]\d\d:\d\d)$/.exec(iso);
  if (!match) return Date.parse(iso);
  const fraction = (match[2] ?? "").slice(0, 3).padEnd(3, "0");
  return Date.parse(`${match[1]}.${fraction}${match[3]}`);
}

/** A group's label: its values in key order ("checkout · /cart"); `(none)` for a missing value. */
export function groupLabel(group: MetricSeriesGroup["group"], ungrouped = "all series"): string {
  const values = Object.values(group);
  if (values.length === 0) return ungrouped;
  return values.map((value) => value ?? "(none)").join(" · ");
}

/** A group's colour: its service's when grouped by service alone, else one from its label. */
export function groupColour(group: MetricSeriesGroup["group"]): string {
  const keys = Object.keys(group);
  if (keys.length === 1 && keys[0] === "service") return serviceColour(group.service ?? "(none)");
  return serviceColour(groupLabel(group));
}

export function plotDataOf(record: MetricSeriesRecord): PlotData {
  const xs = record.buckets.map((start) => isoToMs(start) / 1000);
  const ys = record.groups.map((group) => xs.map((_, i) => finiteOrNull(group.values[i])));
  const series = record.groups.map((group) => ({
    label: groupLabel(group.group, record.name),
    colour: groupColour(group.group),
    group: group.group,
  }));
  return { xs, ys, series };
}

function finiteOrNull(value: number | null | undefined): number | null {
  return typeof value === "number" && Number.isFinite(value) ? value : null;
}

/** Whether the answer has any value to draw. */
export function hasPoints(record: MetricSeriesRecord): boolean {
  return record.groups.some((group) => group.values.some((value) => value !== null));
}

/** A value for the table and the legend: up to six significant digits, no exponent for usual sizes. */
export function formatValue(value: number | null): string {
  if (value === null) return "";
  return String(Number(value.toPrecision(6)));
}

/** A value for an axis tick: short (1.5k, 2.3M), so the axis stays narrow. */
export function formatTick(value: number): string {
  const abs = Math.abs(value);
  if (abs >= 1e9) return `${Number((value / 1e9).toPrecision(3))}G`;
  if (abs >= 1e6) return `${Number((value / 1e6).toPrecision(3))}M`;
  if (abs >= 1e4) return `${Number((value / 1e3).toPrecision(3))}k`;
  return String(Number(value.toPrecision(4)));
}

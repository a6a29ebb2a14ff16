/**
 * A /api/metrics/series answer as the chart, the table and the exemplar list draw it: groups in
 * the order of their labels, bucket starts in seconds (uPlot's x), one value array per group with
 * its nulls kept (a bucket with no point is a gap, never a zero; a rate's last, open bucket holds
 * the rate now), a label and a colour per group, the same while the groups are. Pure.
 */
import { addsUp } from "../../../../shared/metric-routes.js";
import type { MetricSeriesGroup, MetricSeriesRecord } from "../../../../shared/query-types.js";
import { ServiceColours, serviceColour } from "../../format/service-colour.js";
import { isoToMs } from "../../format/time.js";

export interface PlotSeries {
  label: string;
  colour: string;
  group: MetricSeriesGroup["group"];
}

export interface PlotData {
  /** Bucket starts, seconds since the epoch. */
  xs: number[];
  /** One array per series, as long as xs; null where the group had no point (a rate's newest: the rate now). */
  ys: (number | null)[][];
  series: PlotSeries[];
  /**
   * The newest bucket is still filling and its values add up (an increase, a count): they are
   * what came so far, not a bucket's worth, and a line to them would fall at the chart's edge.
   */
  openLast: boolean;
}

/**
 * The answer with its groups in the order of their labels. The API orders them by value, which
 * moves as the values do: a legend in that order jumps at every refresh, and the chart, made
 * again when its lines change order, loses the lines a person hid.
 */
export function inLabelOrder(record: MetricSeriesRecord): MetricSeriesRecord {
  const labelled = record.groups.map((group) => ({ group, label: groupLabel(group.group, record.name) }));
  labelled.sort((a, b) => (a.label < b.label ? -1 : a.label > b.label ? 1 : 0));
  return { ...record, groups: labelled.map(({ group }) => group) };
}

/** A group's label: its values in key order ("checkout · /cart"); `(none)` for a missing value, `(empty)` for "". */
export function groupLabel(group: MetricSeriesGroup["group"], ungrouped = "all series"): string {
  const values = Object.values(group);
  if (values.length === 0) return ungrouped;
  return values.map((value) => (value === null ? "(none)" : value === "" ? "(empty)" : value)).join(" · ");
}

/**
 * The groups' colours: their services' (as every view draws them) when grouped by service alone;
 * else slots of the services' palette by label, a slot taken by a group before it going to the
 * next free one (ServiceColours), so that no two groups of a chart share a colour up to the
 * palette's sixteen. A hue from each label's hash alone put `inventory · 200` and
 * `inventory · 500` 11 degrees apart.
 */
export function groupColours(record: MetricSeriesRecord): string[] {
  const slots = new ServiceColours();
  return record.groups.map(({ group }) => {
    const keys = Object.keys(group);
    if (keys.length === 1 && keys[0] === "service") return serviceColour(group.service ?? "(none)");
    return slots.colour(groupLabel(group, record.name));
  });
}

/**
 * Whether the answer's newest bucket is still filling with values that add up (PlotData.openLast).
 * The window ends now, and the buckets run to the one that holds its end: the newest is open.
 */
export function openLastBucket(record: MetricSeriesRecord): boolean {
  return record.buckets.length > 0 && addsUp(record);
}

export function plotDataOf(record: MetricSeriesRecord): PlotData {
  const xs = record.buckets.map((start) => isoToMs(start) / 1000);
  const ys = record.groups.map((group) => xs.map((_, i) => finiteOrNull(group.values[i])));
  const colours = groupColours(record);
  const series = record.groups.map((group, i) => ({
    label: groupLabel(group.group, record.name),
    colour: colours[i] as string,
    group: group.group,
  }));
  return { xs, ys, series, openLast: openLastBucket(record) };
}

/** The values the chart draws: without the open bucket's, where that bucket is open and adds up (openLast). */
export function chartValues(data: PlotData): (number | null)[][] {
  if (!data.openLast) return data.ys;
  return data.ys.map((values) => [...values.slice(0, -1), null]);
}

function finiteOrNull(value: number | null | undefined): number | null {
  return typeof value === "number" && Number.isFinite(value) ? value : null;
}

/** Whether the answer has any value to draw. */
export function hasPoints(record: MetricSeriesRecord): boolean {
  return record.groups.some((group) => group.values.some((value) => value !== null));
}

/**
 * A value for the table and the legend: a whole number whole (a count of 1234567 tokens is not
 * 1234570), others with six significant digits but never fewer than their integer part's, no
 * exponent for usual sizes.
 */
export function formatValue(value: number | null): string {
  if (value === null) return "";
  const abs = Math.abs(value);
  if (Number.isInteger(value)) return String(value);
  if (abs >= 1e21 || abs < 1) return String(Number(value.toPrecision(6)));
  const integerDigits = Math.floor(Math.log10(abs)) + 1;
  return String(Number(value.toFixed(Math.max(0, 6 - integerDigits))));
}

/** Axis prefixes past k, each a thousand times the one before. */
const TICK_PREFIXES = ["M", "G", "T", "P", "E"] as const;

/**
 * A value for an axis tick: short (1.5k, 2.3M, 1.9P, then 3e+21), so the axis stays narrow;
 * `digits` significant digits (one more without a prefix).
 */
export function formatTick(value: number, digits = 3): string {
  const abs = Math.abs(value);
  if (abs >= 1e21) return value.toExponential(digits - 2).replace(/\.?0+e/, "e");
  for (let i = TICK_PREFIXES.length - 1; i >= 0; i--) {
    const scale = 10 ** (6 + 3 * i);
    if (abs >= scale) return `${Number((value / scale).toPrecision(digits))}${TICK_PREFIXES[i]}`;
  }
  if (abs >= 1e4) return `${Number((value / 1e3).toPrecision(digits))}k`;
  return String(Number(value.toPrecision(digits + 1)));
}

/**
 * An axis's tick labels: as short as formatTick makes them, with more digits where that would
 * label two ticks alike (a gauge moving by a few around 2.47M read 2.47M at every tick).
 */
export function formatTicks(ticks: readonly number[]): string[] {
  let labels = ticks.map((tick) => formatTick(tick));
  for (let digits = 4; digits <= 17 && new Set(labels).size < new Set(ticks).size; digits++) {
    labels = ticks.map((tick) => formatTick(tick, digits));
  }
  return labels;
}

/**
 * The buckets whose value has no neighbour with a value: a line through them draws nothing,
 * so the chart marks them with a point (a gauge sampled once, a group seen in one bucket).
 */
export function isolatedIndices(values: readonly (number | null)[]): number[] {
  const isolated: number[] = [];
  for (let i = 0; i < values.length; i++) {
    if (values[i] === null || values[i] === undefined) continue;
    const before = i > 0 ? values[i - 1] : null;
    const after = i < values.length - 1 ? values[i + 1] : null;
    if ((before === null || before === undefined) && (after === null || after === undefined)) isolated.push(i);
  }
  return isolated;
}

/** The first bucket where any group has a value (the table starts there); the bucket count when none has. */
export function firstFilledBucket(ys: readonly (readonly (number | null)[])[], buckets: number): number {
  for (let i = 0; i < buckets; i++) if (ys.some((values) => values[i] !== null && values[i] !== undefined)) return i;
  return buckets;
}

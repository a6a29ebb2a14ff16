/**
 * Scales and ticks of the traces scatter (duration over start time). The y axis turns
 * logarithmic when the durations span a wide range, so one slow trace does not flatten the
 * rest into the floor (Jaeger's search page has the same problem with a linear axis). Pure.
 */

import { formatClock } from "../../format/time.js";

export interface ScatterPoint {
  startMs: number;
  durationMs: number;
}

export interface Tick {
  value: number;
  /** Pixel position on its axis. */
  at: number;
}

export interface ScatterScales {
  x: (startMs: number) => number;
  y: (durationMs: number) => number;
  log: boolean;
  xTicks: Tick[];
  yTicks: Tick[];
}

export interface PlotArea {
  left: number;
  right: number;
  top: number;
  bottom: number;
}

/** Half the width of a time label (`13:08:30`), in pixels. */
const LABEL_HALF_WIDTH = 26;

/** Durations whose largest is more than this many times the smallest are drawn on a log axis. */
export const LOG_RATIO = 20;

// Whole seconds and up: a label reads to the second, and the frame always spans at least two.
const TIME_STEPS_MS = [
  1000, 2000, 5000, 10_000, 15_000, 30_000, 60_000, 120_000, 300_000, 600_000, 900_000, 1_800_000, 3_600_000, 7_200_000,
  10_800_000, 21_600_000, 43_200_000, 86_400_000,
];

/** Whether durations from `min` to `max` ms are drawn on a log axis. */
export function isWideRange(min: number, max: number): boolean {
  return min > 0 && max / min > LOG_RATIO;
}

/** A "nice" step (1, 2 or 5 times a power of ten) giving about `count` intervals over `span`. */
export function niceStep(span: number, count: number): number {
  const raw = span / Math.max(count, 1);
  const power = 10 ** Math.floor(Math.log10(raw));
  const scaled = raw / power;
  return (scaled <= 1 ? 1 : scaled <= 2 ? 2 : scaled <= 5 ? 5 : 10) * power;
}

/** Multiples of `step` within [lo, hi]. */
function multiples(lo: number, hi: number, step: number): number[] {
  const values: number[] = [];
  for (let value = Math.ceil(lo / step) * step; value <= hi + step * 1e-9; value += step) values.push(value);
  return values;
}

/** A time tick's label: the clock to the second (`13:08:30`). */
export function timeLabel(ms: number): string {
  return formatClock(ms).slice(0, 8);
}

/** A time step from the clock's units (1s, 2s, 5s, 10s, 15s, 30s, 1m, ...) giving at most `count` intervals. */
export function timeStep(spanMs: number, count: number): number {
  return TIME_STEPS_MS.find((step) => spanMs / step <= count) ?? TIME_STEPS_MS[TIME_STEPS_MS.length - 1]!;
}

/** Log ticks: 1, 2, 5 times each power of ten within [lo, hi], thinned to at most `count`. */
export function logTicks(lo: number, hi: number, count: number): number[] {
  const values: number[] = [];
  for (let power = Math.floor(Math.log10(lo)); 10 ** power <= hi; power++) {
    for (const m of [1, 2, 5]) {
      const value = m * 10 ** power;
      if (value >= lo && value <= hi) values.push(Number(value.toPrecision(12)));
    }
  }
  if (values.length <= count) return values;
  const powers = values.filter((value) => Math.abs(Math.log10(value) - Math.round(Math.log10(value))) < 1e-9);
  return powers.length >= 2 ? powers : values.filter((_, i) => i % Math.ceil(values.length / count) === 0);
}

/**
 * Scales placing `points` in `area` (pixels): x over the points' start times, y over their
 * durations from 0 (linear) or from a little below the shortest (log), each padded so no
 * point sits on the frame. Time ticks too close to the frame's ends for their label are left out.
 */
export function scatterScales(
  points: readonly ScatterPoint[],
  area: PlotArea,
  tickCount: { x: number; y: number } = { x: 5, y: 4 },
): ScatterScales {
  const starts = points.map((p) => p.startMs);
  const durations = points.map((p) => p.durationMs);
  let x0 = starts.length > 0 ? Math.min(...starts) : 0;
  let x1 = starts.length > 0 ? Math.max(...starts) : 1;
  const xPad = Math.max((x1 - x0) * 0.04, 1000);
  x0 -= xPad;
  x1 += xPad;
  const dMin = durations.length > 0 ? Math.min(...durations) : 0;
  const dMax = durations.length > 0 ? Math.max(...durations, 0) : 1;
  const log = isWideRange(dMin, dMax);
  const width = area.right - area.left;
  const height = area.bottom - area.top;
  const x = (ms: number) => area.left + ((ms - x0) / (x1 - x0)) * width;
  const labels = new Set<string>();
  const xTicks = multiples(x0, x1, timeStep(x1 - x0, tickCount.x))
    .map((value) => ({ value, at: x(value) }))
    .filter((tick) => tick.at >= area.left + LABEL_HALF_WIDTH && tick.at <= area.right - LABEL_HALF_WIDTH)
    // A day's window can hold two ticks a day apart, which would read as one time twice.
    .filter((tick) => !labels.has(timeLabel(tick.value)) && labels.add(timeLabel(tick.value)));
  if (log) {
    const y0 = Math.log10(dMin) - 0.15;
    const y1 = Math.log10(dMax) + 0.15;
    const y = (ms: number) => area.bottom - ((Math.log10(Math.max(ms, 10 ** y0)) - y0) / (y1 - y0)) * height;
    const yTicks = logTicks(10 ** y0, 10 ** y1, tickCount.y).map((value) => ({ value, at: y(value) }));
    return { x, y, log, xTicks, yTicks };
  }
  const top = dMax > 0 ? dMax * 1.1 : 1;
  const y = (ms: number) => area.bottom - (ms / top) * height;
  const yTicks = multiples(0, top, niceStep(top, tickCount.y)).map((value) => ({ value, at: y(value) }));
  return { x, y, log, xTicks, yTicks };
}

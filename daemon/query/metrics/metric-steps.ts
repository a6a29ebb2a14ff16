/**
 * Buckets of a metric query: the default step for a window, the source a step is read from
 * (rollups of a width, or raw points), and the bucket starts. Pure.
 */
import { METRIC_ROLLUP_WIDTHS_S } from "../../store/metric-slots.js";
import type { MetricSource } from "../telemetry-reader.js";

/** Steps a default is chosen from, in seconds: the ones of a minute or more divide by 60, from 15m by 900. */
const NICE_STEPS_S = [
  1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600, 7200, 10800, 21600, 43200, 86400,
] as const;

/** The most buckets a default step makes. */
export const MAX_DEFAULT_BUCKETS = 120;
/** Windows longer than this get a step of at least the short rollup width (no raw points). */
const RAW_WINDOW_MAX_S = 30 * 60;
/** Windows longer than this get a step of at least the long rollup width. */
const SHORT_ROLLUP_WINDOW_MAX_S = 6 * 3600;

/**
 * The default step of a window, in seconds: the smallest nice step that keeps the window
 * within MAX_DEFAULT_BUCKETS; for a window over 30 minutes at least a minute (read from the
 * 60 s rollups), over 6 hours at least 15 minutes (the 900 s rollups), so a day's default
 * reads at most one rollup row per series and bucket.
 *
 * And at least `intervalS`, how often the series export (when known), up to the window: a
 * bucket shorter than that holds a whole interval's increase in one bucket of several, which
 * read as a rate shows the series' rate times their ratio there and nothing in the others (an
 * SDK's default export is every minute; 15 minutes' own step is 10 s). A tenth of slack takes
 * an exporter's lateness (60.2 s apart still reads a minute a bucket).
 */
export function defaultStepS(windowS: number, intervalS: number | null = null): number {
  const floor = windowS > SHORT_ROLLUP_WINDOW_MAX_S ? 900 : windowS > RAW_WINDOW_MAX_S ? 60 : 1;
  const wanted = Math.max(floor, windowS / MAX_DEFAULT_BUCKETS, intervalS === null ? 0 : intervalS * 0.9);
  const step = NICE_STEPS_S.find((nice) => nice >= wanted) ?? 86400;
  if (intervalS === null || step <= windowS) return step;
  // Series exporting less often than the window is long: its longest nice step within it.
  return [...NICE_STEPS_S].reverse().find((nice) => nice <= windowS) ?? 1;
}

/** Whether a window's default step could be raised by its series' export interval (it is under a minute). */
export function intervalMatters(windowS: number): boolean {
  return defaultStepS(windowS) < 60;
}

/**
 * The widest rollup width the step is a multiple of, else the points. A step in whole
 * seconds that is a multiple of a width makes every rollup slot fall in one bucket.
 */
export function sourceForStep(stepMs: number): MetricSource {
  if (stepMs % 1000 === 0) {
    const stepS = stepMs / 1000;
    const width = [...METRIC_ROLLUP_WIDTHS_S].sort((a, b) => b - a).find((w) => stepS % w === 0);
    if (width !== undefined) return { kind: "rollups", widthS: width };
  }
  return { kind: "points" };
}

/**
 * The buckets of a window: step-aligned starts (Unix ns) from the bucket holding `fromNs` to the
 * one holding `toNs`. The first bucket may begin before the window, so a rollup slot is never
 * split between buckets.
 */
export function bucketStarts(fromNs: bigint, toNs: bigint, stepMs: number): bigint[] {
  const stepNs = BigInt(stepMs) * 1_000_000n;
  const first = (fromNs / stepNs) * stepNs;
  const starts: bigint[] = [];
  for (let start = first; start <= toNs; start += stepNs) starts.push(start);
  return starts;
}

/**
 * The waterfall's time axis: ticks at a round step (1, 2 or 5 times a power of ten
 * milliseconds, or a step of the clock past ten seconds) from the trace's start, about `target` of them over its length, each labelled
 * with its offset. Pure.
 */
import { formatDuration } from "../../format/time.js";

export interface TimeTick {
  offsetMs: number;
  /** Percent of the axis. */
  percent: number;
  label: string;
}

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;
/**
 * Past ten seconds, steps of the clock: 1, 2 or 5 times a power of ten would put a tick at
 * 33m 20s, whose label (to the minute past an hour) would then name another time.
 */
const CLOCK_STEPS = [
  10 * SECOND,
  15 * SECOND,
  30 * SECOND,
  MINUTE,
  2 * MINUTE,
  5 * MINUTE,
  10 * MINUTE,
  15 * MINUTE,
  30 * MINUTE,
  HOUR,
  2 * HOUR,
  3 * HOUR,
  6 * HOUR,
  12 * HOUR,
  24 * HOUR,
];

/** The round step giving at most about `target` intervals over `lengthMs`. */
export function tickStep(lengthMs: number, target: number): number {
  const raw = lengthMs / Math.max(1, target);
  if (!(raw > 0) || !Number.isFinite(raw)) return 1;
  if (raw > 5 * SECOND) {
    const clock = CLOCK_STEPS.find((step) => step >= raw);
    if (clock !== undefined) return clock;
    return Math.ceil(raw / (24 * HOUR)) * 24 * HOUR;
  }
  const power = 10 ** Math.floor(Math.log10(raw));
  for (const factor of [1, 2, 5, 10]) if (power * factor >= raw) return power * factor;
  return power * 10;
}

/** Ticks from 0 up to 90% of `lengthMs`: a label past that would not fit before the axis ends. */
export function timeTicks(lengthMs: number, target = 5): TimeTick[] {
  const step = tickStep(lengthMs, target);
  const ticks: TimeTick[] = [];
  for (let k = 0; k * step <= lengthMs * 0.9; k += 1) {
    const offsetMs = k * step;
    ticks.push({ offsetMs, percent: (offsetMs / lengthMs) * 100, label: k === 0 ? "0" : formatDuration(offsetMs) });
  }
  return ticks;
}

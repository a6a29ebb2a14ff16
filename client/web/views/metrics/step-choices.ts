/**
 * The bucket widths the step control offers for a window: the ones /api/metrics/series takes
 * (at least 1s, at most the window, at most 1,440 buckets, a whole minute over a window longer
 * than an hour) from a short list of round widths. Pure.
 */
import { parseDuration } from "../../../../shared/duration.js";

const STEPS = ["10s", "30s", "1m", "5m", "15m", "1h"] as const;
const MAX_BUCKETS = 1440;
const HOUR_MS = 3_600_000;

function msOf(text: string): number | undefined {
  try {
    return parseDuration(text);
  } catch {
    return undefined;
  }
}

/** Whether the series route takes `step` over the window `lookback`; true when either cannot be read (the route says why). */
export function stepFits(step: string, lookback: string): boolean {
  const windowMs = msOf(lookback);
  const stepMs = msOf(step);
  if (windowMs === undefined || stepMs === undefined) return true;
  if (stepMs < 1000 || stepMs > windowMs || windowMs / stepMs > MAX_BUCKETS) return false;
  return windowMs <= HOUR_MS || stepMs % 60_000 === 0;
}

/** The offered steps for the window `lookback`; all of them when the window cannot be read. */
export function stepChoices(lookback: string): string[] {
  return STEPS.filter((step) => stepFits(step, lookback));
}

/**
 * What a new window changes beside itself: a step the address holds that the window cannot take
 * goes back to auto (10s chosen over 15m would make 8,640 buckets of a day, which the route refuses).
 */
export function stepAlongWith(step: string | undefined) {
  return (lookback: string): Record<string, string | null> =>
    step !== undefined && !stepFits(step, lookback) ? { step: null } : {};
}

/** The choices with the current step first when the address holds one the list lacks (so it shows). */
export function stepOptions(lookback: string, current: string | undefined): string[] {
  const choices = stepChoices(lookback);
  return current === undefined || choices.includes(current) ? choices : [current, ...choices];
}

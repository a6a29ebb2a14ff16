/** Times and durations as the UI shows them. Pure. */

/** Nanoseconds since the epoch (the API's decimal text) as milliseconds. */
export function nanosToMs(unixNano: string | number): number {
  return typeof unixNano === "number" ? unixNano / 1e6 : Number(BigInt(unixNano) / 1000n) / 1000;
}

const ISO_FRACTION = /^(.*T\d\d:\d\d:\d\d)(?:\.(\d+))?(Z|[+-]\d\d:\d\d)$/;

/**
 * The API's ISO 8601 times (`2026-11-25T13:07:43.758123456Z`) as milliseconds since the epoch,
 * the digits past the millisecond kept as a fraction: Date.parse is only specified for
 * milliseconds. NaN when unreadable.
 */
export function isoToMs(iso: string): number {
  const match = ISO_FRACTION.exec(iso);
  if (!match) return Date.parse(iso);
  const [, seconds, digits = "", zone] = match;
  const whole = Date.parse(`${seconds}${zone}`);
  return digits ? whole + Number(`0.${digits}`) * 1000 : whole;
}

/**
 * A duration in milliseconds, with a unit that keeps 3 significant digits: 850µs, 12.4ms, 3.21s,
 * 2m 5s, 1h 3m. A value that rounds up to the next unit is written in it (999.9ms is 1s), and
 * minutes split a whole number of seconds, so no unit ever reads 60 ("1m 60s").
 */
export function formatDuration(ms: number): string {
  if (!Number.isFinite(ms)) return "–";
  if (ms < 0) return `-${formatDuration(-ms)}`;
  const micros = round3(ms * 1000);
  if (micros < 1000) return `${micros}µs`;
  const millis = round3(ms);
  if (millis < 1000) return `${millis}ms`;
  const seconds = round3(ms / 1000);
  if (seconds < 60) return `${seconds}s`;
  const wholeSeconds = Math.round(ms / 1000);
  const minutes = Math.floor(wholeSeconds / 60);
  if (minutes < 60) return `${minutes}m ${wholeSeconds % 60}s`;
  return `${Math.floor(minutes / 60)}h ${minutes % 60}m`;
}

function round3(value: number): number {
  return Number(value.toPrecision(3));
}

function pad(n: number, width = 2): string {
  return String(n).padStart(width, "0");
}

/** A time of day in the browser's zone, to the millisecond: 14:03:07.125; "–" when unreadable. */
export function formatClock(ms: number): string {
  const date = new Date(ms);
  if (Number.isNaN(date.getTime())) return "–";
  return `${pad(date.getHours())}:${pad(date.getMinutes())}:${pad(date.getSeconds())}.${pad(date.getMilliseconds(), 3)}`;
}

/** A date and time in the browser's zone: 2026-11-25 14:03:07.125; "–" when unreadable. */
export function formatDateTime(ms: number): string {
  const date = new Date(ms);
  if (Number.isNaN(date.getTime())) return "–";
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())} ${formatClock(ms)}`;
}

/**
 * A time as ISO 8601 for a `<time dateTime>`, or undefined (no attribute) when the time is
 * unreadable or out of Date's range, where toISOString would throw and blank the view.
 */
export function isoDateTime(ms: number): string | undefined {
  const date = new Date(ms);
  return Number.isNaN(date.getTime()) ? undefined : date.toISOString();
}

/** How long ago, coarsely: 5s ago, 3m ago, 2h ago. */
export function formatAgo(ms: number, now: number = Date.now()): string {
  const seconds = Math.max(0, Math.round((now - ms) / 1000));
  if (seconds < 60) return `${seconds}s ago`;
  if (seconds < 3600) return `${Math.round(seconds / 60)}m ago`;
  return `${Math.round(seconds / 3600)}h ago`;
}

/**
 * The API writes times as ISO 8601 with nanoseconds (`2026-11-25T13:07:43.758123456Z`);
 * Date.parse is only specified for milliseconds, so the digits past them are read here. Pure.
 */
const ISO_FRACTION = /^(.*T\d\d:\d\d:\d\d)(?:\.(\d+))?(Z|[+-]\d\d:\d\d)$/;

/** Milliseconds since the epoch, with the sub-millisecond digits as a fraction; NaN when unreadable. */
export function isoToMs(iso: string): number {
  const match = ISO_FRACTION.exec(iso);
  if (!match) return Date.parse(iso);
  const [, seconds, digits = "", zone] = match;
  const whole = Date.parse(`${seconds}${zone}`);
  return digits ? whole + Number(`0.${digits}`) * 1000 : whole;
}

/**
 * Durations as every human-readable obs output prints them: three significant digits and the
 * unit that keeps the number readable (`850 µs`, `52.5 ms`, `1.27 s`, `2.5 min`). One format
 * everywhere, so durations in a table, a waterfall and a span can be compared at a glance.
 */

const UNITS: [limitMs: number, perUnitMs: number, unit: string][] = [
  [1, 0.001, "µs"],
  [1_000, 1, "ms"],
  [60_000, 1_000, "s"],
  [3_600_000, 60_000, "min"],
  [Number.POSITIVE_INFINITY, 3_600_000, "h"],
];

function threeDigits(value: number): string {
  return String(Number(value.toPrecision(3)));
}

export function formatDuration(ms: number): string {
  if (!Number.isFinite(ms)) return "-";
  if (ms === 0) return "0 ms";
  const sign = ms < 0 ? "-" : "";
  let size = Math.abs(ms);
  for (const [limit, per, unit] of UNITS) {
    if (Number(threeDigits(size / per)) * per < limit) return `${sign}${threeDigits(size / per)} ${unit}`;
    // Rounding to three digits carried into the next unit (999.96 ms -> 1000 ms, 59.95 s ->
    // 60.0 s): that unit shows the rounded value, 1 s or 1 min, not 0.999 min of the exact one.
    size = Math.max(size, limit);
  }
  return `${sign}${threeDigits(size / 3_600_000)} h`;
}

/** Nanoseconds (raw records) in the same format. */
export function formatDurationNs(ns: number | bigint): string {
  return formatDuration(Number(ns) / 1e6);
}

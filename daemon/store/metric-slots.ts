/**
 * The widths of the metric rollup slots (metric_rollups.width_s), in seconds. A query whose
 * step is a multiple of a width reads that width's rollups instead of points: one row per
 * series and slot. Two widths keep both a one-hour view (60 one-minute buckets) and a day
 * (96 fifteen-minute buckets) within about a hundred thousand rows at a thousand series.
 * Changing them needs a migration that rebuilds metric_rollups.
 */
export const METRIC_ROLLUP_WIDTHS_S = [60, 900] as const;

export type RollupWidth = (typeof METRIC_ROLLUP_WIDTHS_S)[number];

/**
 * The widths the writer folds points into, every commit. The wider ones are merged from these
 * when their slot closes and is packed (metric-slot-packer.ts): until then a query reads a
 * wider slot from its 60 s rows.
 */
export const FOLDED_WIDTHS_S = [60] as const;

/** The slot a time falls in, for a width in seconds. */
export function slotOf(timeNs: bigint, widthS: number): number {
  return Number(timeNs / (BigInt(widthS) * 1_000_000_000n));
}

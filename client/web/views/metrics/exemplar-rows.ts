/**
 * The exemplars of a series answer, as marks on the chart and rows under it: each group's
 * exemplars (newest first) with their time, the bucket that holds that time and the group's
 * value there (where the mark sits). A trace seen in several groups is listed once, under the
 * first group in the answer's order (the chart's: inLabelOrder). Pure.
 */
import type { MetricSeriesRecord } from "../../../../shared/query-types.js";
import { isoToMs } from "../../format/time.js";
import { groupColours, groupLabel, openLastBucket } from "./series-data.js";

export interface ExemplarRow {
  traceId: string;
  groupLabel: string;
  colour: string;
  /** 1 for the group's newest exemplar. */
  rank: number;
  /** When the point that carried it was recorded (ms since the epoch). */
  timeMs: number;
  /** The group's index in the answer (its line on the chart). */
  group: number;
  /** The answer's bucket that holds the exemplar; -1 when it lies outside them. */
  bucket: number;
  /** The group's value in that bucket (where the mark sits); null when the bucket has none, or is not drawn (openLastBucket). */
  value: number | null;
}

/** The last bucket starting at or before `timeMs`; -1 when `timeMs` is before the first. */
export function bucketOf(bucketStartsMs: readonly number[], stepMs: number, timeMs: number): number {
  let found = -1;
  for (let i = 0; i < bucketStartsMs.length; i++) if ((bucketStartsMs[i] as number) <= timeMs) found = i;
  if (found === -1) return -1;
  return timeMs < (bucketStartsMs[found] as number) + stepMs ? found : -1;
}

export function exemplarRows(record: MetricSeriesRecord): ExemplarRow[] {
  const starts = record.buckets.map(isoToMs);
  const seen = new Set<string>();
  const rows: ExemplarRow[] = [];
  const colours = groupColours(record);
  // The chart leaves an open bucket of values that add up out: a mark there sits on the time axis.
  const drawnUpTo = openLastBucket(record) ? record.buckets.length - 1 : record.buckets.length;
  record.groups.forEach((group, index) => {
    let rank = 0;
    for (const exemplar of group.exemplars) {
      rank++;
      if (seen.has(exemplar.traceId)) continue;
      seen.add(exemplar.traceId);
      const timeMs = isoToMs(exemplar.time);
      const bucket = bucketOf(starts, record.stepMs, timeMs);
      rows.push({
        traceId: exemplar.traceId,
        groupLabel: groupLabel(group.group, record.name),
        colour: colours[index] as string,
        rank,
        timeMs,
        group: index,
        bucket,
        value: bucket === -1 || bucket >= drawnUpTo ? null : (group.values[bucket] ?? null),
      });
    }
  });
  return rows;
}

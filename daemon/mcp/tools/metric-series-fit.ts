/**
 * A metric series answer cut to a byte budget. Every group keeps the same newest buckets, so a
 * value's bucket is found the same way in each group: the first kept bucket starts at
 * `first_bucket`, each next one `step_ms` later. Older buckets go first (an agent asks about now),
 * down to MIN_BUCKETS; past that, the last groups go (the API orders groups largest latest
 * first, or largest total where the values add up). Pure.
 */
import { addsUp, totalOf } from "../../../shared/metric-routes.js";
import type { MetricSeriesGroup, MetricSeriesRecord } from "../../../shared/query-types.js";
import { cutLongStrings, fitItems, jsonBytes } from "../budget.js";

/** Buckets every group keeps before groups are dropped to fit the budget. */
export const MIN_BUCKETS = 12;

/** One group of the answer, compact. */
export interface SeriesGroupRow {
  group: Record<string, string | null>;
  latest: number | null;
  /** Where the values add up (addsUp): their sum over every bucket of the window, those left out too. */
  total?: number | null;
  /** The newest buckets' values, oldest first; null where the group had no point (a rate's newest: the rate now). */
  values: (number | null)[];
  series: number;
  resets: number;
  exemplar_trace_ids: string[];
}

export interface FittedSeries<R> {
  answer: R;
  /** Buckets of the window left out, the oldest. */
  droppedBuckets: number;
  /** Groups left out, the smallest. */
  droppedGroups: number;
}

/** The significant digits a value with a fraction keeps, at the least. */
const SIGNIFICANT_DIGITS = 6;

/**
 * A value as the answer shows it: a whole number exactly, as the API answers it (a counter of
 * 123456789 is not 123457000); a fraction's long tail trimmed to six significant digits
 * (a rate of 3.5199509011976855 reads 3.51995), yet never into the whole part, which keeps
 * every digit and one decimal (123456.789 reads 123456.8).
 */
export function roundValue(value: number | null): number | null {
  if (value === null || Number.isInteger(value) || !Number.isFinite(value)) return value;
  const wholeDigits = Math.abs(value) < 1 ? 0 : Math.floor(Math.log10(Math.abs(value))) + 1;
  return Number(value.toPrecision(Math.min(17, Math.max(SIGNIFICANT_DIGITS, wholeDigits + 1))));
}

function groupRow(group: MetricSeriesGroup, keep: number, additive: boolean): SeriesGroupRow {
  return {
    group: cutLongStrings(group.group),
    latest: roundValue(group.latest),
    ...(additive ? { total: roundValue(totalOf(group.values)) } : {}),
    values: group.values.slice(group.values.length - keep).map(roundValue),
    series: group.series,
    resets: group.resets,
    exemplar_trace_ids: group.exemplarTraceIds,
  };
}

/**
 * `build(groups, firstBucket, cut)` with as many buckets and groups as fit `maxBytes`:
 * first every bucket, else the newest buckets (at least MIN_BUCKETS), else fewer groups.
 */
export function fitSeries<R>(
  record: MetricSeriesRecord,
  maxBytes: number,
  build: (groups: SeriesGroupRow[], firstBucket: string | null, cut: { buckets: number; groups: number }) => R,
): FittedSeries<R> {
  const total = record.buckets.length;
  const additive = addsUp(record);
  const answerWith = (keep: number, groups: readonly MetricSeriesGroup[]) =>
    build(
      groups.map((group) => groupRow(group, keep, additive)),
      record.buckets[total - keep] ?? null,
      { buckets: total - keep, groups: record.groups.length - groups.length },
    );
  const fitsWith = (keep: number) => jsonBytes(answerWith(keep, record.groups)) <= maxBytes;
  const floor = Math.min(MIN_BUCKETS, total);
  if (fitsWith(total)) return { answer: answerWith(total, record.groups), droppedBuckets: 0, droppedGroups: 0 };
  if (fitsWith(floor)) {
    // The most buckets that fit, by bisection between the floor (fits) and all (does not).
    let low = floor;
    let high = total - 1;
    while (low < high) {
      const middle = Math.ceil((low + high) / 2);
      if (fitsWith(middle)) low = middle;
      else high = middle - 1;
    }
    return { answer: answerWith(low, record.groups), droppedBuckets: total - low, droppedGroups: 0 };
  }
  const { answer, kept } = fitItems(record.groups, maxBytes, (groups) => answerWith(floor, groups));
  return { answer, droppedBuckets: total - floor, droppedGroups: record.groups.length - kept };
}

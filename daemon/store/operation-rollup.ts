import {
  addDuration,
  type DurationBuckets,
  encodeBuckets,
  mergeBuckets,
  mergeEncoded,
} from "../../shared/duration-histogram.js";

/** Slowest spans kept per rollup row: enough for the audit's examples of any window. */
export const SLOWEST_KEPT = 5;

/** [duration ns, span id, trace id] */
export type SlowSpan = [number, string, string];

/** What the store keeps per operation (service and span name) and time slot. */
export interface OperationRollup {
  spans: number;
  /** Latest span start in the slot. */
  newestNs: bigint;
  buckets: DurationBuckets;
  /** Slowest first; ties by span id, then trace id, so the choice never depends on row order. */
  slowest: SlowSpan[];
}

export function emptyOperationRollup(): OperationRollup {
  return { spans: 0, newestNs: 0n, buckets: new Map(), slowest: [] };
}

export function compareSlow(a: SlowSpan, b: SlowSpan): number {
  return b[0] - a[0] || (a[1] < b[1] ? -1 : a[1] > b[1] ? 1 : a[2] < b[2] ? -1 : a[2] > b[2] ? 1 : 0);
}

/** Whether a span of this duration would enter the slowest list. */
function entersSlowest(rollup: OperationRollup, durationNs: number): boolean {
  const last = rollup.slowest[rollup.slowest.length - 1];
  return rollup.slowest.length < SLOWEST_KEPT || last === undefined || durationNs >= last[0];
}

function keepSlowest(list: SlowSpan[]): SlowSpan[] {
  list.sort(compareSlow);
  if (list.length > SLOWEST_KEPT) list.length = SLOWEST_KEPT;
  return list;
}

export function addSpan(
  rollup: OperationRollup,
  startNs: bigint,
  durationNs: number,
  spanId: string,
  traceId: string,
): void {
  rollup.spans += 1;
  if (startNs > rollup.newestNs) rollup.newestNs = startNs;
  addDuration(rollup.buckets, durationNs);
  if (entersSlowest(rollup, durationNs)) {
    rollup.slowest.push([durationNs, spanId, traceId]);
    keepSlowest(rollup.slowest);
  }
}

export function mergeRollup(into: OperationRollup, from: OperationRollup): void {
  into.spans += from.spans;
  if (from.newestNs > into.newestNs) into.newestNs = from.newestNs;
  mergeBuckets(into.buckets, from.buckets);
  into.slowest = keepSlowest([...into.slowest, ...from.slowest]);
}

/** A stored rollup row, as the tables hold it. */
export interface StoredOperationRollup {
  spans: number | bigint;
  newest_ns: bigint;
  max_ns: number | bigint;
  histogram: Uint8Array;
  slowest: string;
}

export function encodeRollup(rollup: OperationRollup): StoredOperationRollup {
  return {
    spans: rollup.spans,
    newest_ns: rollup.newestNs,
    max_ns: rollup.slowest[0]?.[0] ?? 0,
    histogram: encodeBuckets(rollup.buckets),
    slowest: JSON.stringify(rollup.slowest),
  };
}

/**
 * Adds a stored row into `into`. The slowest list is parsed only when the row's slowest span
 * could enter it: most rows of a long window cannot, and parsing is the costly part.
 */
export function mergeStored(into: OperationRollup, row: StoredOperationRollup): void {
  into.spans += Number(row.spans);
  if (row.newest_ns > into.newestNs) into.newestNs = row.newest_ns;
  mergeEncoded(into.buckets, row.histogram);
  if (entersSlowest(into, Number(row.max_ns))) {
    into.slowest = keepSlowest([...into.slowest, ...(JSON.parse(row.slowest) as SlowSpan[])]);
  }
}

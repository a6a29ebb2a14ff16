import {
  addDuration,
  type DurationBuckets,
  encodeBuckets,
  mergeBuckets,
  mergeEncoded,
} from "../../shared/duration-histogram.js";
import { pushVarint, unzigzag, VarintReader, zigzag } from "../../shared/varint.js";

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
  /** encodeSlowest's form. */
  slowest: Uint8Array;
}

/**
 * The stored form of a slowest list (schema version 21): per span, slowest first, the zigzag
 * varint of its duration, then its span id's and its trace id's bytes, each after a byte giving
 * their number (8 and 16 for the ids the decoders accept). About a fifth of the JSON text's size.
 */
export function encodeSlowest(slowest: readonly SlowSpan[]): Buffer {
  const out: number[] = [];
  for (const [durationNs, spanId, traceId] of slowest) {
    pushVarint(out, zigzag(durationNs));
    for (const hex of [spanId, traceId]) {
      const bytes = Buffer.from(hex, "hex");
      out.push(bytes.length, ...bytes);
    }
  }
  return Buffer.from(out);
}

/** The slowest list encodeSlowest stored. */
export function decodeSlowest(stored: Uint8Array): SlowSpan[] {
  const reader = new VarintReader(stored);
  const slowest: SlowSpan[] = [];
  while (!reader.done) {
    const durationNs = unzigzag(reader.varint());
    const spanId = Buffer.from(reader.bytesOf(reader.varint())).toString("hex");
    const traceId = Buffer.from(reader.bytesOf(reader.varint())).toString("hex");
    slowest.push([durationNs, spanId, traceId]);
  }
  return slowest;
}

export function encodeRollup(rollup: OperationRollup): StoredOperationRollup {
  return {
    spans: rollup.spans,
    newest_ns: rollup.newestNs,
    max_ns: rollup.slowest[0]?.[0] ?? 0,
    histogram: encodeBuckets(rollup.buckets),
    slowest: encodeSlowest(rollup.slowest),
  };
}

/**
 * Adds a stored row into `into`. The slowest list is decoded only when the row's slowest span
 * could enter it: most rows of a long window cannot.
 */
export function mergeStored(into: OperationRollup, row: StoredOperationRollup): void {
  into.spans += Number(row.spans);
  if (row.newest_ns > into.newestNs) into.newestNs = row.newest_ns;
  mergeEncoded(into.buckets, row.histogram);
  if (entersSlowest(into, Number(row.max_ns))) {
    into.slowest = keepSlowest([...into.slowest, ...decodeSlowest(row.slowest)]);
  }
}

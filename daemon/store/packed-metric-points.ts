import type { MetricBatch, MetricKind, MetricPointRecord, ResourceRecord, ScopeRecord } from "../otlp/records.js";
import type { PackedMetricBatch } from "./packed-batch.js";
import { StringTable } from "./packed-layout.js";

/**
 * Metric points cross from the decoder thread to the writer thread as columns: a point's
 * numbers in three typed arrays, its texts as numbers into the batch's string table, its
 * attributes' JSON in an array of strings, and the rare parts (histogram buckets, summary
 * quantiles, exemplars) only for the points that have them.
 *
 * Structured clone rebuilds every value of an array one by one on the receiving side, and the
 * receiving side is the writer, the busiest thread; a typed array crosses as one copy of its
 * bytes. Packed as an array of fields a record (packed-layout.ts, as spans and logs still
 * are), a point was 23 values to write on the decoder thread and to rebuild on the writer
 * thread; as columns it is its attributes' string and three copies of bytes
 * (docs/metrics-store.md, "Points cross as columns").
 */
export interface PackedMetricPoints {
  resources: ResourceRecord[];
  scopes: ScopeRecord[];
  /** The texts the points refer to by number (metric name, description, unit, kind, metadata), each once. */
  strings: string[];
  /** Per point, INT_WIDTH unsigned integers at INT_* (texts as `strings` indexes, NONE for null). */
  ints: Uint32Array;
  /** Per point, FLOAT_WIDTH numbers at FLOAT_* (0 where the point has none: see PRESENT's bits). */
  floats: Float64Array;
  /** Per point, its start and time in nanoseconds (both within SQLite's signed 64 bits: stored-time.ts). */
  times: BigInt64Array;
  /**
   * Per point, its attributes' JSON; null where the decoder thread sent its set's text in an
   * earlier batch (or earlier in this one) and the writer restores it (attribute-text-crossing.ts).
   */
  attributes: (string | null)[];
  /**
   * The lowest attribute set number later batches can carry, set as the batch leaves the
   * decoder thread (attribute-text-crossing.ts); 0 until then.
   */
  firstLiveSet: number;
  /**
   * For each point with any of them, in point order: its index, then its bounds, bucket counts,
   * exponential buckets, quantiles and exemplars (DETAIL_WIDTH values in all).
   */
  details: unknown[];
}

const INT_NAME = 0;
const INT_DESCRIPTION = 1;
const INT_UNIT = 2;
const INT_KIND = 3;
const INT_METADATA = 4;
const INT_TEMPORALITY = 5;
const INT_FLAGS = 6;
const INT_RESOURCE = 7;
const INT_SCOPE = 8;
/**
 * The decoder's number for the point's attribute set (0 when it has none): a set's JSON
 * crosses once per decoder thread, and later points of the set by this number alone
 * (attribute-text-crossing.ts).
 */
const INT_ATTRIBUTE_SET = 9;
/** Bits: which of the floats the point has, whether it is monotonic, whether it has details. */
const INT_PRESENT = 10;
const INT_WIDTH = 11;

const FLOAT_VALUE = 0;
const FLOAT_COUNT = 1;
const FLOAT_SUM = 2;
const FLOAT_MIN = 3;
const FLOAT_MAX = 4;
const FLOAT_WIDTH = 5;

const HAS_VALUE = 1;
const HAS_COUNT = 2;
const HAS_SUM = 4;
const HAS_MIN = 8;
const HAS_MAX = 16;
const MONOTONIC = 32;
const HAS_DETAILS = 64;

const DETAIL_WIDTH = 6;

/**
 * Where each field of a point crosses. A field added to MetricPointRecord is a compile error
 * here until it is given a place, and then packMetricPoints and unpackMetricPoints carry it.
 */
const CROSSINGS = {
  name: "ints",
  description: "ints",
  unit: "ints",
  kind: "ints",
  temporality: "ints",
  monotonic: "ints",
  metadata: "ints",
  attributes: "attributes",
  attributeSet: "ints",
  indexed: "not crossed: the writer derives a new series' entries from its attributes",
  startNs: "times",
  timeNs: "times",
  flags: "ints",
  value: "floats",
  count: "floats",
  sum: "floats",
  min: "floats",
  max: "floats",
  bounds: "details",
  bucketCounts: "details",
  exponential: "details",
  quantiles: "details",
  exemplars: "details",
  resource: "ints",
  scope: "ints",
} as const satisfies Record<keyof MetricPointRecord, string>;
void CROSSINGS;

/** A null text (metadata) in `ints`. */
const NONE = 0xffffffff;

export function packedPointCount(packed: PackedMetricPoints): number {
  return packed.attributes.length;
}

/** The decoder's number for point `i`'s attribute set (0: not numbered). */
export function attributeSetAt(packed: PackedMetricPoints, i: number): number {
  return packed.ints[i * INT_WIDTH + INT_ATTRIBUTE_SET] as number;
}

export function packMetricPoints(batch: MetricBatch): PackedMetricBatch {
  const count = batch.points.length;
  const table = new StringTable();
  const ints = new Uint32Array(count * INT_WIDTH);
  const floats = new Float64Array(count * FLOAT_WIDTH);
  const times = new BigInt64Array(count * 2);
  const attributes = new Array<string | null>(count);
  const details: unknown[] = [];
  for (let i = 0; i < count; i++) {
    const point = batch.points[i] as MetricPointRecord;
    const n = i * INT_WIDTH;
    const f = i * FLOAT_WIDTH;
    ints[n + INT_NAME] = table.of(point.name);
    ints[n + INT_DESCRIPTION] = table.of(point.description);
    ints[n + INT_UNIT] = table.of(point.unit);
    ints[n + INT_KIND] = table.of(point.kind);
    ints[n + INT_METADATA] = point.metadata === null ? NONE : table.of(point.metadata);
    ints[n + INT_TEMPORALITY] = point.temporality;
    ints[n + INT_FLAGS] = point.flags;
    ints[n + INT_RESOURCE] = point.resource;
    ints[n + INT_SCOPE] = point.scope;
    ints[n + INT_ATTRIBUTE_SET] = point.attributeSet;
    let present = point.monotonic ? MONOTONIC : 0;
    if (point.value !== null) {
      present |= HAS_VALUE;
      floats[f + FLOAT_VALUE] = point.value;
    }
    if (point.count !== null) {
      present |= HAS_COUNT;
      floats[f + FLOAT_COUNT] = point.count;
    }
    if (point.sum !== null) {
      present |= HAS_SUM;
      floats[f + FLOAT_SUM] = point.sum;
    }
    if (point.min !== null) {
      present |= HAS_MIN;
      floats[f + FLOAT_MIN] = point.min;
    }
    if (point.max !== null) {
      present |= HAS_MAX;
      floats[f + FLOAT_MAX] = point.max;
    }
    if (
      point.bounds !== null ||
      point.bucketCounts !== null ||
      point.exponential !== null ||
      point.quantiles !== null ||
      point.exemplars !== null
    ) {
      present |= HAS_DETAILS;
      details.push(i, point.bounds, point.bucketCounts, point.exponential, point.quantiles, point.exemplars);
    }
    ints[n + INT_PRESENT] = present;
    times[2 * i] = point.startNs;
    times[2 * i + 1] = point.timeNs;
    attributes[i] = point.attributes;
  }
  return {
    resources: batch.resources,
    scopes: batch.scopes,
    strings: table.strings,
    ints,
    floats,
    times,
    attributes,
    firstLiveSet: 0,
    details,
  } as PackedMetricPoints as PackedMetricBatch;
}

/** What an unpacked metric point holds for its index entries (they do not cross): never written to. */
const NOT_CROSSED: string[] = [];
Object.freeze(NOT_CROSSED);

/**
 * The points of a packed batch, rebuilt `size` at a time, in order, with empty index entries:
 * the writer needs those once per series, when it creates the series, and derives them from
 * the attributes' JSON then (metric-series.ts). Texts left out for the crossing must have been
 * restored first (ReceivedAttributeTexts).
 */
export function* unpackMetricPoints(packed: PackedMetricPoints, size: number): Generator<MetricBatch> {
  const { strings, ints, floats, times, attributes, details } = packed;
  const count = attributes.length;
  let detail = 0;
  for (let from = 0; from < count; from += size) {
    const points = new Array<MetricPointRecord>(Math.min(size, count - from));
    for (let k = 0; k < points.length; k++) {
      const i = from + k;
      const n = i * INT_WIDTH;
      const f = i * FLOAT_WIDTH;
      const present = ints[n + INT_PRESENT] as number;
      const metadata = ints[n + INT_METADATA] as number;
      const json = attributes[i];
      // A text left out for the crossing and never restored would store the point as another series.
      if (json === null || json === undefined)
        throw new Error(`packed metric points: point ${i}'s attributes were not restored`);
      const set = ints[n + INT_ATTRIBUTE_SET] as number;
      let d = -1;
      if ((present & HAS_DETAILS) !== 0) {
        if (details[detail] !== i) throw new Error(`packed metric points: details out of order at point ${i}`);
        d = detail + 1;
        detail += DETAIL_WIDTH;
      }
      points[k] = {
        name: strings[ints[n + INT_NAME] as number] as string,
        description: strings[ints[n + INT_DESCRIPTION] as number] as string,
        unit: strings[ints[n + INT_UNIT] as number] as string,
        kind: strings[ints[n + INT_KIND] as number] as MetricKind,
        temporality: ints[n + INT_TEMPORALITY] as number,
        monotonic: (present & MONOTONIC) !== 0,
        metadata: metadata === NONE ? null : (strings[metadata] as string),
        attributes: json,
        attributeSet: set,
        indexed: NOT_CROSSED,
        startNs: times[2 * i] as bigint,
        timeNs: times[2 * i + 1] as bigint,
        flags: ints[n + INT_FLAGS] as number,
        value: (present & HAS_VALUE) !== 0 ? (floats[f + FLOAT_VALUE] as number) : null,
        count: (present & HAS_COUNT) !== 0 ? (floats[f + FLOAT_COUNT] as number) : null,
        sum: (present & HAS_SUM) !== 0 ? (floats[f + FLOAT_SUM] as number) : null,
        min: (present & HAS_MIN) !== 0 ? (floats[f + FLOAT_MIN] as number) : null,
        max: (present & HAS_MAX) !== 0 ? (floats[f + FLOAT_MAX] as number) : null,
        bounds: d < 0 ? null : (details[d] as number[] | null),
        bucketCounts: d < 0 ? null : (details[d + 1] as number[] | null),
        exponential: d < 0 ? null : (details[d + 2] as MetricPointRecord["exponential"]),
        quantiles: d < 0 ? null : (details[d + 3] as [number, number][] | null),
        exemplars: d < 0 ? null : (details[d + 4] as string | null),
        resource: ints[n + INT_RESOURCE] as number,
        scope: ints[n + INT_SCOPE] as number,
      };
    }
    yield { resources: packed.resources, scopes: packed.scopes, points };
  }
}

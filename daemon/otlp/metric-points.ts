import { hasLoneSurrogate } from "../../shared/lone-surrogate.js";
import { nsToIso } from "../../shared/time.js";
import { type DecodedAttributes, describeAttributes, type PlainValue, sortedKeys } from "./any-value.js";
import { chargeDecoded } from "./decode-allowance.js";
import type { ExpBuckets, MetricKind, MetricPointRecord } from "./records.js";

/**
 * What the two metric decoders (decode-metrics.ts for OTLP/JSON, protobuf-metrics.ts for
 * OTLP/protobuf) share: the point record's shape, the checks a point must pass and the
 * exemplars' stored JSON, so both wire forms give equal records for the same request.
 */

/**
 * A point's attributes as stored, keys in sorted order: OTLP attribute sets are unordered, and
 * the stored JSON is the series' identity (its hash, metric-series.ts) and part of the
 * request's repeat key (kept-records.ts), so [a, b] and [b, a] must give the same text.
 * Sorting here, once per point while it is decoded, costs the writer's hot loop nothing; an
 * object whose keys already come sorted (the usual case: an SDK sends a series alike each
 * time) is kept as it is. Integer-like keys are ordered by the engine before the others
 * whatever is done, which is still one order per set of keys. Spans and logs keep the order
 * they were sent in.
 */
export function pointAttributes(object: { [key: string]: PlainValue }): DecodedAttributes {
  return describeAttributes(sortedKeys(object));
}

/** A Metric's data fields (its `data` oneof), by their OTLP/JSON names, and the kind each is. */
export const DATA_FIELDS: Readonly<Record<string, MetricKind>> = {
  gauge: "gauge",
  sum: "sum",
  histogram: "histogram",
  exponentialHistogram: "exponential_histogram",
  summary: "summary",
};

export const TEMPORALITIES: Readonly<Record<string, number>> = {
  AGGREGATION_TEMPORALITY_UNSPECIFIED: 0,
  AGGREGATION_TEMPORALITY_DELTA: 1,
  AGGREGATION_TEMPORALITY_CUMULATIVE: 2,
};

/** Temporalities past cumulative do not exist; a query could not tell what such a series means. */
export function temporalityProblem(temporality: number): string | null {
  return temporality > 2 ? `unknown aggregation temporality ${temporality}` : null;
}

/**
 * The longest metric name kept, in bytes of UTF-8. Every query names its metric in the URL, and
 * Node refuses a request whose headers pass 16 KiB (431); a name of this length takes at most
 * 3 KiB there, percent-encoded. OpenTelemetry's API allows instrument names of 255 characters.
 */
export const MAX_METRIC_NAME_BYTES = 1024;

/**
 * A metric with points needs a name: it is how every query names one (`name` is required and
 * not empty there), so points under an empty name, or one too long to ask for, would be stored
 * and never read.
 */
export function nameProblem(name: string): string | null {
  if (name === "") return "a metric with data points needs a name";
  // No query, in UTF-8, could name it again.
  if (hasLoneSurrogate(name)) return "a metric name must be Unicode text: it has half of a surrogate pair";
  // Measured only past the length that could reach the limit (a UTF-16 unit is at most 3 bytes).
  const bytes = name.length > MAX_METRIC_NAME_BYTES / 3 ? Buffer.byteLength(name, "utf8") : name.length;
  if (bytes > MAX_METRIC_NAME_BYTES) {
    return `a metric name of ${bytes} bytes (UTF-8) is longer than the ${MAX_METRIC_NAME_BYTES} obs keeps (queries name it in their URL)`;
  }
  return null;
}

/** The scales the OpenTelemetry data model gives exponential histograms. */
export const MIN_SCALE = -10;
export const MAX_SCALE = 20;

/**
 * An exponential histogram's scale outside the data model's range: past 20 the buckets are
 * narrower than a double tells apart, below -10 wider than the doubles' range.
 */
export function scaleProblem(scale: number): string | null {
  return scale < MIN_SCALE || scale > MAX_SCALE
    ? `expected a scale from ${MIN_SCALE} to ${MAX_SCALE}, got ${scale}`
    : null;
}

/** What a Metric says of all its points: its identity (as records.ts documents it). */
export interface MetricIdentity {
  name: string;
  description: string;
  unit: string;
  kind: MetricKind;
  temporality: number;
  monotonic: boolean;
  metadata: string | null;
}

/**
 * A point record with its metric's identity left blank (set by `identify` once the whole
 * Metric is read: its name may come after its points on the wire). Every record is made
 * here, so they all share one shape.
 */
export function blankPoint(resource: number, scope: number): MetricPointRecord {
  return {
    name: "",
    description: "",
    unit: "",
    kind: "gauge",
    temporality: 0,
    monotonic: false,
    metadata: null,
    attributes: "{}",
    attributeSet: 0,
    indexed: [],
    startNs: 0n,
    timeNs: 0n,
    flags: 0,
    value: null,
    count: null,
    sum: null,
    min: null,
    max: null,
    bounds: null,
    bucketCounts: null,
    exponential: null,
    quantiles: null,
    exemplars: null,
    resource,
    scope,
  };
}

/** Gives each of a metric's points the metric's identity. */
export function identify(points: readonly MetricPointRecord[], identity: MetricIdentity): void {
  for (const point of points) {
    point.name = identity.name;
    point.description = identity.description;
    point.unit = identity.unit;
    point.kind = identity.kind;
    point.temporality = identity.temporality;
    point.monotonic = identity.monotonic;
    point.metadata = identity.metadata;
  }
}

/** A double as the records hold it: OTLP/JSON's "NaN", "Infinity" and "-Infinity" as numbers. */
export function asNumber(value: number | string): number {
  return typeof value === "number" ? value : Number(value);
}

/** A value as stored in JSON text: NaN and the infinities as their names (as attribute values are). */
export function jsonNumber(value: number): number | string {
  return Number.isFinite(value) ? value : String(value);
}

/**
 * Bucket counts, bounds and quantiles are plain numbers in arrays, far lighter than an
 * attribute (a key, a value and their objects): sixteen of them are charged one value, so a
 * body of nothing but buckets is still bounded without making ordinary histograms costly.
 */
const NUMBERS_PER_UNIT = 16;

export function chargeNumbers(count: number): void {
  if (count > 0) chargeDecoded(Math.ceil(count / NUMBERS_PER_UNIT));
}

/**
 * Why a histogram's buckets cannot be read (null when they can): OTLP requires one more count
 * than bounds (or neither), and bounds in increasing order; quantiles interpolate within them.
 * Returns the field at fault and the reason.
 */
export function histogramProblem(bounds: readonly number[], counts: readonly number[]): [string, string] | null {
  const none = counts.length === 0 && bounds.length === 0;
  if (!none && counts.length !== bounds.length + 1) {
    return [
      "bucketCounts",
      `${counts.length} bucket counts for ${bounds.length} explicit bounds (expected ${bounds.length + 1}, or none with no bounds)`,
    ];
  }
  for (let i = 1; i < bounds.length; i++) {
    if (!((bounds[i] as number) > (bounds[i - 1] as number))) {
      return [`explicitBounds[${i}]`, `bounds must increase: ${bounds[i]} after ${bounds[i - 1]}`];
    }
  }
  if (bounds.some(Number.isNaN)) return ["explicitBounds", "a bound is NaN"];
  return null;
}

/** One side of an exponential histogram's buckets; absent sides are empty at offset 0. */
export function expBuckets(offset: number, bucketCounts: number[]): ExpBuckets {
  return { offset, bucketCounts };
}

/** An exemplar as stored in a point's `exemplars` JSON array. */
export interface ExemplarEntry {
  time: string;
  timeUnixNano: string;
  /** as_double or as_int; NaN and the infinities as their names; null when absent. */
  value: number | string | null;
  traceId: string | null;
  spanId: string | null;
  attributes: { [key: string]: PlainValue };
}

const ZERO_ID = /^0+$/;

/** An exemplar's entry; all-zero ids mean "not set", as for log records. */
export function exemplarEntry(
  timeNs: bigint,
  value: number | string | null,
  traceId: string | null,
  spanId: string | null,
  attributes: { [key: string]: PlainValue },
): ExemplarEntry {
  return {
    time: nsToIso(timeNs),
    timeUnixNano: timeNs.toString(),
    value: typeof value === "number" ? jsonNumber(value) : value,
    traceId: traceId === null || ZERO_ID.test(traceId) ? null : traceId,
    spanId: spanId === null || ZERO_ID.test(spanId) ? null : spanId,
    attributes,
  };
}

export function exemplarsJson(exemplars: readonly ExemplarEntry[] | null): string | null {
  return exemplars === null || exemplars.length === 0 ? null : JSON.stringify(exemplars);
}

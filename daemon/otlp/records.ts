/**
 * The normalized records the decoders produce and the store writes. Both wire forms
 * (OTLP/JSON and OTLP/protobuf) decode to exactly these shapes.
 *
 * JSON-typed fields (`attributes`, `events`, `links`, `body`) are already serialized here,
 * on the HTTP thread, so the writer thread only binds values.
 */

export interface ResourceRecord {
  /** Content hash (hex) of the resource: attributes, dropped count and schema URL. */
  hash: string;
  serviceName: string;
  /** JSON object of attribute key to value. */
  attributes: string;
  droppedAttributesCount: number;
  schemaUrl: string | null;
}

export interface ScopeRecord {
  hash: string;
  name: string;
  version: string | null;
  attributes: string;
  droppedAttributesCount: number;
  schemaUrl: string | null;
}

export interface SpanRecord {
  traceId: string;
  spanId: string;
  parentSpanId: string | null;
  traceState: string | null;
  flags: number;
  name: string;
  kind: number;
  startNs: bigint;
  endNs: bigint;
  statusCode: number;
  statusMessage: string | null;
  attributes: string;
  /** Flat [key, value, key, value, ...] list of the attribute index entries. */
  indexed: string[];
  events: string | null;
  links: string | null;
  droppedAttributesCount: number;
  droppedEventsCount: number;
  droppedLinksCount: number;
  /** Index into the batch's `resources`. */
  resource: number;
  /** Index into the batch's `scopes`. */
  scope: number;
}

export interface LogRecordRow {
  /** Content hash (20 bytes): identical records sent twice are stored once. */
  hash: Uint8Array;
  timeNs: bigint;
  observedNs: bigint;
  severityNumber: number;
  severityText: string | null;
  /** JSON of the body AnyValue, or null when the body is empty. */
  body: string | null;
  attributes: string;
  indexed: string[];
  traceId: string | null;
  spanId: string | null;
  flags: number;
  eventName: string | null;
  droppedAttributesCount: number;
  resource: number;
  scope: number;
}

/** OTLP's five point kinds, as stored (`metrics.kind`) and served. */
export type MetricKind = "gauge" | "sum" | "histogram" | "exponential_histogram" | "summary";

/** One side (positive or negative) of an exponential histogram's buckets. */
export interface ExpBuckets {
  offset: number;
  bucketCounts: number[];
}

/**
 * A metric data point with its metric's identity: the record metrics are made of. A time
 * series is resource + scope + metric identity (name, kind, unit, temporality, monotonic) +
 * the point's attributes; the writer keeps series identities once and the points compactly.
 *
 * Counts (`count`, `bucketCounts`, `zeroCount`) are uint64 on the wire and numbers here: a
 * count past 2^53 loses its low digits, as it would in any JavaScript client.
 */
export interface MetricPointRecord {
  name: string;
  /** "" when the metric has none. */
  description: string;
  /** "" when the metric has none. */
  unit: string;
  kind: MetricKind;
  /** AggregationTemporality: 0 unspecified (gauge, summary), 1 delta, 2 cumulative. */
  temporality: number;
  /** Sums: is_monotonic; false for every other kind. */
  monotonic: boolean;
  /** JSON object of the metric's `metadata` attributes, or null when it has none. */
  metadata: string | null;
  /** JSON object of the point's attributes ("{}" when none), keys in the order sent. */
  attributes: string;
  /**
   * The decoder's number for that set (KnownPointAttributes), 0 when it has none: a set's text
   * crosses to the writer once, later points by this number (attribute-text-crossing.ts).
   */
  attributeSet: number;
  /** Flat [key, value, key, value, ...] list of the point attributes' index entries (as spans). */
  indexed: string[];
  /** The point's start_time_unix_nano; 0 when absent (gauges). */
  startNs: bigint;
  timeNs: bigint;
  flags: number;
  /** Gauge and sum: the value (as_double, or as_int as a number); null for the other kinds. */
  value: number | null;
  /** Histogram, exponential histogram and summary: count and sum; null for gauge and sum. */
  count: number | null;
  /** Null when absent (a histogram may omit it) or for gauge and sum. */
  sum: number | null;
  /** Histogram and exponential histogram; null when absent. */
  min: number | null;
  max: number | null;
  /** Histogram: explicit_bounds, ascending; null for the other kinds. */
  bounds: number[] | null;
  /** Histogram: bounds.length + 1 counts; null for the other kinds. */
  bucketCounts: number[] | null;
  /** Exponential histogram: its buckets at its own scale; null for the other kinds. */
  exponential: {
    scale: number;
    zeroCount: number;
    zeroThreshold: number;
    positive: ExpBuckets;
    negative: ExpBuckets;
  } | null;
  /** Summary: [quantile, value] pairs as sent; null for the other kinds. */
  quantiles: [number, number][] | null;
  /**
   * JSON array of the exemplars ({time, timeUnixNano, value, traceId, spanId, attributes}, ids
   * lower-case hex or null), or null when there are none.
   */
  exemplars: string | null;
  resource: number;
  scope: number;
}

export interface SpanBatch {
  resources: ResourceRecord[];
  scopes: ScopeRecord[];
  spans: SpanRecord[];
}

export interface LogBatch {
  resources: ResourceRecord[];
  scopes: ScopeRecord[];
  logs: LogRecordRow[];
}

export interface MetricBatch {
  resources: ResourceRecord[];
  scopes: ScopeRecord[];
  points: MetricPointRecord[];
}

export const UNKNOWN_SERVICE = "unknown_service";

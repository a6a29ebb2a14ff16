import type { DecodedAttributes } from "./any-value.js";
import type { ByteRun } from "./byte-runs.js";
import { type AttributeRuns, KnownPointAttributes } from "./known-point-attributes.js";
import {
  blankPoint,
  chargeNumbers,
  type ExemplarEntry,
  exemplarEntry,
  exemplarsJson,
  expBuckets,
  histogramProblem,
  scaleProblem,
} from "./metric-points.js";
import { type AttributeHolder, attributesField, type PlainObject } from "./protobuf-any-value.js";
import {
  type Field,
  type MessageType,
  messageField,
  repeatedMessageField,
  repeatedScalarField,
  SCALAR,
  scalarField,
} from "./protobuf-descriptor.js";
import { FieldError } from "./protobuf-wire.js";
import type { ExpBuckets, MetricKind, MetricPointRecord } from "./records.js";
import { MAX_STORED_NS, tooLate } from "./stored-time.js";

/**
 * Descriptors of opentelemetry/proto/metrics/v1/metrics.proto's data points (NumberDataPoint,
 * HistogramDataPoint, ExponentialHistogramDataPoint, SummaryDataPoint) and their exemplars,
 * read to point records with the conversions decode-metrics.ts makes from OTLP/JSON. A point
 * closes to its record without its metric's identity, which protobuf-metrics.ts adds.
 */

/** A Gauge, Sum, Histogram, ExponentialHistogram or Summary as it is read. */
export interface DataState {
  readonly kind: MetricKind;
  readonly resource: number;
  readonly scope: number;
  temporality: number;
  monotonic: boolean;
  readonly points: MetricPointRecord[];
}

/** A data point of any kind as it is read; each kind's `close` takes the fields it has. */
export class PointState implements AttributeHolder, AttributeRuns {
  readonly attributes: PlainObject = {};
  attributeRuns = 0;
  recalled: DecodedAttributes | null = null;
  run: ByteRun | null = null;
  runHash = 0;
  runUnits = 0;
  set = 0;
  startNs = 0n;
  timeNs = 0n;
  flags = 0;
  value: number | null = null;
  count = 0;
  sum: number | null = null;
  min: number | null = null;
  max: number | null = null;
  bounds: number[] = [];
  bucketCounts: number[] = [];
  scale = 0;
  zeroCount = 0;
  zeroThreshold = 0;
  positive: ExpBuckets | null = null;
  negative: ExpBuckets | null = null;
  quantiles: [number, number][] = [];
  exemplars: ExemplarEntry[] | null = null;
  constructor(readonly data: DataState) {}
}

interface ExemplarState extends AttributeHolder {
  timeNs: bigint;
  value: number | null;
  traceId: string | null;
  spanId: string | null;
}

function setValue(state: { value: number | null }, value: number): void {
  state.value = value;
}

function setIntValue(state: { value: number | null }, value: bigint): void {
  state.value = Number(value);
}

/** Exemplar: filtered_attributes = 7, time_unix_nano = 2, as_double = 3, as_int = 6, span_id = 4, trace_id = 5. */
const EXEMPLAR: MessageType<ExemplarState, ExemplarEntry, PointState> = {
  name: "opentelemetry.proto.metrics.v1.Exemplar",
  fields: [
    attributesField(7, "filteredAttributes"),
    scalarField(2, "timeUnixNano", SCALAR.fixed64, (state: ExemplarState, ns: bigint) => {
      state.timeNs = ns;
    }),
    scalarField(3, "asDouble", SCALAR.double, setValue),
    scalarField(6, "asInt", SCALAR.sfixed64, setIntValue),
    scalarField(4, "spanId", SCALAR.id(8), (state: ExemplarState, id: string | null) => {
      state.spanId = id;
    }),
    scalarField(5, "traceId", SCALAR.id(16), (state: ExemplarState, id: string | null) => {
      state.traceId = id;
    }),
  ],
  open: () => ({ attributes: {}, timeNs: 0n, value: null, traceId: null, spanId: null }),
  close: (state) => exemplarEntry(state.timeNs, state.value, state.traceId, state.spanId, state.attributes),
};

function addExemplar(point: PointState, exemplar: ExemplarEntry): void {
  if (point.exemplars === null) point.exemplars = [];
  point.exemplars.push(exemplar);
}

/** This thread's point attribute sets, by their bytes. */
const KNOWN_ATTRIBUTES = new KnownPointAttributes<PointState>();

/** The lowest attribute set number this thread's points can carry from now on (KnownPointAttributes). */
export function firstLiveAttributeSet(): number {
  return KNOWN_ATTRIBUTES.firstLiveSet;
}

/** The fields every data point kind has, at its own numbers (a summary has no exemplars). */
function commonFields(numbers: { attributes: number; flags: number; exemplars: number | null }): Field<PointState>[] {
  const fields = [
    attributesField(numbers.attributes, "attributes", KNOWN_ATTRIBUTES),
    scalarField(2, "startTimeUnixNano", SCALAR.fixed64, (point: PointState, ns: bigint) => {
      point.startNs = ns;
    }),
    scalarField(3, "timeUnixNano", SCALAR.fixed64, (point: PointState, ns: bigint) => {
      point.timeNs = ns;
    }),
    scalarField(numbers.flags, "flags", SCALAR.uint32, (point: PointState, flags: number) => {
      point.flags = flags;
    }),
  ];
  if (numbers.exemplars !== null) {
    fields.push(repeatedMessageField(numbers.exemplars, "exemplars", EXEMPLAR, addExemplar, { charge: 1 }));
  }
  return fields;
}

function countField(no: number, name: string, set: (point: PointState, count: number) => void): Field<PointState> {
  return scalarField(no, name, SCALAR.fixed64, (point: PointState, count: bigint) => set(point, Number(count)));
}

function doubleField(no: number, name: string, set: (point: PointState, value: number) => void): Field<PointState> {
  return scalarField(no, name, SCALAR.double, set);
}

const SUM_FIELD = doubleField(5, "sum", (point, sum) => {
  point.sum = sum;
});
const MIN_FIELD = (no: number) =>
  doubleField(no, "min", (point, min) => {
    point.min = min;
  });
const MAX_FIELD = (no: number) =>
  doubleField(no, "max", (point, max) => {
    point.max = max;
  });

/** The record of a point, with the fields every kind has; its metric's identity comes later. */
function pointRecord(point: PointState): MetricPointRecord {
  if (point.startNs > MAX_STORED_NS) throw new FieldError("startTimeUnixNano", tooLate(point.startNs));
  if (point.timeNs > MAX_STORED_NS) throw new FieldError("timeUnixNano", tooLate(point.timeNs));
  const record = blankPoint(point.data.resource, point.data.scope);
  const attributes = KNOWN_ATTRIBUTES.attributesOf(point);
  record.attributes = attributes.json;
  record.attributeSet = point.set;
  record.indexed = attributes.indexed;
  record.startNs = point.startNs;
  record.timeNs = point.timeNs;
  record.flags = point.flags;
  record.exemplars = exemplarsJson(point.exemplars);
  return record;
}

function pointType(
  name: string,
  fields: Field<PointState>[],
  close: (point: PointState) => MetricPointRecord,
): MessageType<PointState, MetricPointRecord, DataState> {
  return { name: `opentelemetry.proto.metrics.v1.${name}`, fields, open: (data) => new PointState(data), close };
}

export const NUMBER_POINT = pointType(
  "NumberDataPoint",
  [
    ...commonFields({ attributes: 7, flags: 8, exemplars: 5 }),
    doubleField(4, "asDouble", setValue),
    scalarField(6, "asInt", SCALAR.sfixed64, setIntValue),
  ],
  (point) => {
    const record = pointRecord(point);
    record.value = point.value;
    return record;
  },
);

export const HISTOGRAM_POINT = pointType(
  "HistogramDataPoint",
  [
    ...commonFields({ attributes: 9, flags: 10, exemplars: 8 }),
    countField(4, "count", (point, count) => {
      point.count = count;
    }),
    SUM_FIELD,
    repeatedScalarField(6, "bucketCounts", SCALAR.fixed64, (point: PointState, count: bigint) => {
      point.bucketCounts.push(Number(count));
    }),
    repeatedScalarField(7, "explicitBounds", SCALAR.double, (point: PointState, bound: number) => {
      point.bounds.push(bound);
    }),
    MIN_FIELD(11),
    MAX_FIELD(12),
  ],
  (point) => {
    chargeNumbers(point.bounds.length + point.bucketCounts.length);
    const problem = histogramProblem(point.bounds, point.bucketCounts);
    if (problem !== null) throw new FieldError(problem[0], problem[1]);
    const record = pointRecord(point);
    record.count = point.count;
    record.sum = point.sum;
    record.min = point.min;
    record.max = point.max;
    record.bounds = point.bounds;
    record.bucketCounts = point.bucketCounts;
    return record;
  },
);

interface BucketsState {
  offset: number;
  readonly bucketCounts: number[];
}

/** ExponentialHistogramDataPoint.Buckets: offset = 1, bucket_counts = 2. */
const BUCKETS: MessageType<BucketsState, ExpBuckets, PointState> = {
  name: "opentelemetry.proto.metrics.v1.ExponentialHistogramDataPoint.Buckets",
  fields: [
    scalarField(1, "offset", SCALAR.sint32, (state: BucketsState, offset: number) => {
      state.offset = offset;
    }),
    repeatedScalarField(2, "bucketCounts", SCALAR.uint64, (state: BucketsState, count: bigint) => {
      state.bucketCounts.push(Number(count));
    }),
  ],
  open: () => ({ offset: 0, bucketCounts: [] }),
  close: (state) => expBuckets(state.offset, state.bucketCounts),
};

export const EXPONENTIAL_POINT = pointType(
  "ExponentialHistogramDataPoint",
  [
    ...commonFields({ attributes: 1, flags: 10, exemplars: 11 }),
    countField(4, "count", (point, count) => {
      point.count = count;
    }),
    SUM_FIELD,
    scalarField(6, "scale", SCALAR.sint32, (point: PointState, scale: number) => {
      point.scale = scale;
    }),
    countField(7, "zeroCount", (point, count) => {
      point.zeroCount = count;
    }),
    messageField(8, "positive", BUCKETS, (point: PointState, buckets) => {
      point.positive = buckets;
    }),
    messageField(9, "negative", BUCKETS, (point: PointState, buckets) => {
      point.negative = buckets;
    }),
    MIN_FIELD(12),
    MAX_FIELD(13),
    doubleField(14, "zeroThreshold", (point, threshold) => {
      point.zeroThreshold = threshold;
    }),
  ],
  (point) => {
    const badScale = scaleProblem(point.scale);
    if (badScale !== null) throw new FieldError("scale", badScale);
    const positive = point.positive ?? expBuckets(0, []);
    const negative = point.negative ?? expBuckets(0, []);
    chargeNumbers(positive.bucketCounts.length + negative.bucketCounts.length);
    const record = pointRecord(point);
    record.count = point.count;
    record.sum = point.sum;
    record.min = point.min;
    record.max = point.max;
    record.exponential = {
      scale: point.scale,
      zeroCount: point.zeroCount,
      zeroThreshold: point.zeroThreshold,
      positive,
      negative,
    };
    return record;
  },
);

interface QuantileState {
  quantile: number;
  value: number;
}

/** SummaryDataPoint.ValueAtQuantile: quantile = 1, value = 2. */
const VALUE_AT_QUANTILE: MessageType<QuantileState, [number, number], PointState> = {
  name: "opentelemetry.proto.metrics.v1.SummaryDataPoint.ValueAtQuantile",
  fields: [
    scalarField(1, "quantile", SCALAR.double, (state: QuantileState, quantile: number) => {
      state.quantile = quantile;
    }),
    scalarField(2, "value", SCALAR.double, (state: QuantileState, value: number) => {
      state.value = value;
    }),
  ],
  open: () => ({ quantile: 0, value: 0 }),
  close: (state) => [state.quantile, state.value],
};

export const SUMMARY_POINT = pointType(
  "SummaryDataPoint",
  [
    ...commonFields({ attributes: 7, flags: 8, exemplars: null }),
    countField(4, "count", (point, count) => {
      point.count = count;
    }),
    SUM_FIELD,
    repeatedMessageField(6, "quantileValues", VALUE_AT_QUANTILE, (point: PointState, pair: [number, number]) => {
      point.quantiles.push(pair);
    }),
  ],
  (point) => {
    chargeNumbers(2 * point.quantiles.length);
    const record = pointRecord(point);
    record.count = point.count;
    // Summary's sum is not optional in the .proto: absent means 0.
    record.sum = point.sum ?? 0;
    record.quantiles = point.quantiles;
    return record;
  },
);

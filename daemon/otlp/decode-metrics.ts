import { decodeAttributes, listOf, toPlainObject } from "./any-value.js";
import { enumValue, optionalString, ParsedScopes } from "./batch-scopes.js";
import { chargeDecoded, RECORD_UNITS } from "./decode-allowance.js";
import { type EnvelopeFields, requireObject, walkEnvelope } from "./envelope.js";
import {
  asNumber,
  blankPoint,
  chargeNumbers,
  DATA_FIELDS,
  type ExemplarEntry,
  exemplarEntry,
  exemplarsJson,
  expBuckets,
  histogramProblem,
  identify,
  type MetricIdentity,
  nameProblem,
  pointAttributes,
  scaleProblem,
  TEMPORALITIES,
  temporalityProblem,
} from "./metric-points.js";
import { PayloadError } from "./payload-error.js";
import type { ExpBuckets, MetricBatch, MetricKind, MetricPointRecord } from "./records.js";
import { storedTime } from "./stored-time.js";
import type { WireCodec } from "./wire-codec.js";

const METRIC_FIELDS: EnvelopeFields = { resources: "resourceMetrics", scopes: "scopeMetrics", items: "metrics" };

// Shapes of the OTLP messages as OTLP/JSON presents them (camelCase field names).
interface Metric {
  name?: unknown;
  description?: unknown;
  unit?: unknown;
  metadata?: unknown;
  [data: string]: unknown;
}

interface MetricData {
  dataPoints?: unknown;
  aggregationTemporality?: unknown;
  isMonotonic?: unknown;
}

interface DataPoint {
  attributes?: unknown;
  startTimeUnixNano?: unknown;
  timeUnixNano?: unknown;
  flags?: unknown;
  exemplars?: unknown;
  asDouble?: unknown;
  asInt?: unknown;
  count?: unknown;
  sum?: unknown;
  min?: unknown;
  max?: unknown;
  bucketCounts?: unknown;
  explicitBounds?: unknown;
  scale?: unknown;
  zeroCount?: unknown;
  zeroThreshold?: unknown;
  positive?: unknown;
  negative?: unknown;
  quantileValues?: unknown;
}

interface Exemplar {
  filteredAttributes?: unknown;
  timeUnixNano?: unknown;
  asDouble?: unknown;
  asInt?: unknown;
  spanId?: unknown;
  traceId?: unknown;
}

/** Decodes an ExportMetricsServiceRequest (parsed from OTLP/JSON) to one record per data point. */
export function decodeMetrics(request: unknown, codec: WireCodec): MetricBatch {
  const scopes = new ParsedScopes(codec);
  const points: MetricPointRecord[] = [];
  walkEnvelope(request, METRIC_FIELDS, scopes, (item, { resource, scope, path }) => {
    chargeDecoded(RECORD_UNITS);
    decodeMetric(item as Metric, codec, path, resource, scope, points);
  });
  return { resources: scopes.resources, scopes: scopes.scopes, points };
}

/** The metric's one data field (none: the metric adds no point). */
function dataField(metric: Metric, path: string): [string, MetricKind] | null {
  let found: [string, MetricKind] | null = null;
  for (const field in DATA_FIELDS) {
    if (metric[field] == null) continue;
    if (found !== null) throw new PayloadError(`${path}: a metric holds one data field, got ${found[0]} and ${field}`);
    found = [field, DATA_FIELDS[field] as MetricKind];
  }
  return found;
}

function decodeMetric(
  metric: Metric,
  codec: WireCodec,
  path: string,
  resource: number,
  scope: number,
  out: MetricPointRecord[],
): void {
  const name = optionalString(metric.name, `${path}.name`) ?? "";
  const description = optionalString(metric.description, `${path}.description`) ?? "";
  const unit = optionalString(metric.unit, `${path}.unit`) ?? "";
  const metadataList = listOf(metric.metadata, `${path}.metadata`);
  const metadata = metadataList.length === 0 ? null : decodeAttributes(metadataList, codec, `${path}.metadata`).json;
  const found = dataField(metric, path);
  if (found === null) return;
  const [field, kind] = found;
  const dataPath = `${path}.${field}`;
  const data = requireObject<MetricData>(metric[field], dataPath);
  let temporality = 0;
  if (kind === "sum" || kind === "histogram" || kind === "exponential_histogram") {
    const where = `${dataPath}.aggregationTemporality`;
    temporality = enumValue(data.aggregationTemporality, TEMPORALITIES, codec, where);
    const problem = temporalityProblem(temporality);
    if (problem !== null) throw new PayloadError(`${where}: ${problem}`);
  }
  let monotonic = false;
  if (kind === "sum" && data.isMonotonic != null) {
    if (typeof data.isMonotonic !== "boolean") throw new PayloadError(`${dataPath}.isMonotonic: expected a boolean`);
    monotonic = data.isMonotonic;
  }
  const identity: MetricIdentity = { name, description, unit, kind, temporality, monotonic, metadata };
  const list = listOf(data.dataPoints, `${dataPath}.dataPoints`);
  const points: MetricPointRecord[] = [];
  for (let i = 0; i < list.length; i++) {
    const pointPath = `${dataPath}.dataPoints[${i}]`;
    chargeDecoded(RECORD_UNITS);
    const point = decodePoint(requireObject<DataPoint>(list[i], pointPath), kind, codec, pointPath, resource, scope);
    points.push(point);
  }
  const unnamed = points.length > 0 ? nameProblem(name) : null;
  if (unnamed !== null) throw new PayloadError(`${path}.name: ${unnamed}`);
  identify(points, identity);
  for (const point of points) out.push(point);
}

function decodePoint(
  point: DataPoint,
  kind: MetricKind,
  codec: WireCodec,
  path: string,
  resource: number,
  scope: number,
): MetricPointRecord {
  const record = blankPoint(resource, scope);
  const attributesPath = `${path}.attributes`;
  const attributes = pointAttributes(toPlainObject(listOf(point.attributes, attributesPath), codec, attributesPath));
  record.attributes = attributes.json;
  record.indexed = attributes.indexed;
  record.startNs = storedTime(codec, point.startTimeUnixNano, `${path}.startTimeUnixNano`);
  record.timeNs = storedTime(codec, point.timeUnixNano, `${path}.timeUnixNano`);
  record.flags = codec.uint32(point.flags, `${path}.flags`);
  // A summary point has no exemplars field.
  if (kind !== "summary")
    record.exemplars = exemplarsJson(decodeExemplars(point.exemplars, codec, `${path}.exemplars`));
  if (kind === "gauge" || kind === "sum") {
    record.value = numberValue(point, codec, path);
    return record;
  }
  record.count = count(codec, point.count, `${path}.count`);
  if (kind === "summary") {
    record.sum = point.sum == null ? 0 : double(codec, point.sum, `${path}.sum`);
    record.quantiles = quantiles(point.quantileValues, codec, `${path}.quantileValues`);
    return record;
  }
  record.sum = optionalDouble(codec, point.sum, `${path}.sum`);
  record.min = optionalDouble(codec, point.min, `${path}.min`);
  record.max = optionalDouble(codec, point.max, `${path}.max`);
  if (kind === "histogram") {
    const bounds = listOf(point.explicitBounds, `${path}.explicitBounds`).map((bound, i) =>
      double(codec, bound, `${path}.explicitBounds[${i}]`),
    );
    const counts = counts64(point.bucketCounts, codec, `${path}.bucketCounts`);
    chargeNumbers(bounds.length + counts.length);
    const problem = histogramProblem(bounds, counts);
    if (problem !== null) throw new PayloadError(`${path}.${problem[0]}: ${problem[1]}`);
    record.bounds = bounds;
    record.bucketCounts = counts;
    return record;
  }
  const positive = buckets(point.positive, codec, `${path}.positive`);
  const negative = buckets(point.negative, codec, `${path}.negative`);
  chargeNumbers(positive.bucketCounts.length + negative.bucketCounts.length);
  const scale = sint32(point.scale, `${path}.scale`);
  const badScale = scaleProblem(scale);
  if (badScale !== null) throw new PayloadError(`${path}.scale: ${badScale}`);
  record.exponential = {
    scale,
    zeroCount: count(codec, point.zeroCount, `${path}.zeroCount`),
    zeroThreshold: point.zeroThreshold == null ? 0 : double(codec, point.zeroThreshold, `${path}.zeroThreshold`),
    positive,
    negative,
  };
  return record;
}

function double(codec: WireCodec, value: unknown, path: string): number {
  return asNumber(codec.double(value, path));
}

function optionalDouble(codec: WireCodec, value: unknown, path: string): number | null {
  return value == null ? null : double(codec, value, path);
}

/** A uint64 count as a number (records.ts: past 2^53 it loses its low digits). */
function count(codec: WireCodec, value: unknown, path: string): number {
  return Number(codec.uint64(value, path));
}

function counts64(value: unknown, codec: WireCodec, path: string): number[] {
  return listOf(value, path).map((item, i) => count(codec, item, `${path}[${i}]`));
}

function sint32(value: unknown, path: string): number {
  if (value == null) return 0;
  const n = typeof value === "string" && /^-?\d+$/.test(value) ? Number(value) : value;
  if (typeof n !== "number" || !Number.isInteger(n) || n < -(2 ** 31) || n >= 2 ** 31) {
    throw new PayloadError(`${path}: expected a 32-bit integer`);
  }
  return n;
}

/** NumberDataPoint's and Exemplar's `value` oneof: as_double or as_int, null when neither is sent. */
function oneValue(
  item: { asDouble?: unknown; asInt?: unknown },
  codec: WireCodec,
  path: string,
): number | string | null {
  if (item.asDouble != null && item.asInt != null) {
    throw new PayloadError(`${path}: a value is asDouble or asInt, not both`);
  }
  if (item.asDouble != null) return codec.double(item.asDouble, `${path}.asDouble`);
  if (item.asInt != null) return Number(codec.int64(item.asInt, `${path}.asInt`));
  return null;
}

function numberValue(point: DataPoint, codec: WireCodec, path: string): number | null {
  const value = oneValue(point, codec, path);
  return value === null ? null : asNumber(value);
}

function buckets(value: unknown, codec: WireCodec, path: string): ExpBuckets {
  if (value == null) return expBuckets(0, []);
  const side = requireObject<{ offset?: unknown; bucketCounts?: unknown }>(value, path);
  return expBuckets(sint32(side.offset, `${path}.offset`), counts64(side.bucketCounts, codec, `${path}.bucketCounts`));
}

function quantiles(value: unknown, codec: WireCodec, path: string): [number, number][] {
  const list = listOf(value, path);
  chargeNumbers(2 * list.length);
  return list.map((item, i) => {
    const entry = requireObject<{ quantile?: unknown; value?: unknown }>(item, `${path}[${i}]`);
    return [
      entry.quantile == null ? 0 : double(codec, entry.quantile, `${path}[${i}].quantile`),
      entry.value == null ? 0 : double(codec, entry.value, `${path}[${i}].value`),
    ];
  });
}

function decodeExemplars(value: unknown, codec: WireCodec, path: string): ExemplarEntry[] | null {
  const list = listOf(value, path);
  if (list.length === 0) return null;
  chargeDecoded(list.length);
  return list.map((item, i) => {
    const where = `${path}[${i}]`;
    const exemplar = requireObject<Exemplar>(item, where);
    return exemplarEntry(
      codec.uint64(exemplar.timeUnixNano, `${where}.timeUnixNano`),
      oneValue(exemplar, codec, where),
      codec.id(exemplar.traceId, 16, `${where}.traceId`),
      codec.id(exemplar.spanId, 8, `${where}.spanId`),
      toPlainObject(
        listOf(exemplar.filteredAttributes, `${where}.filteredAttributes`),
        codec,
        `${where}.filteredAttributes`,
      ),
    );
  });
}

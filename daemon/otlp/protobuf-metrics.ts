import { describeAttributes } from "./any-value.js";
import { RECORD_UNITS } from "./decode-allowance.js";
import { identify, nameProblem, temporalityProblem } from "./metric-points.js";
import { type AttributeHolder, attributesField } from "./protobuf-any-value.js";
import {
  type Field,
  type MessageType,
  messageField,
  repeatedMessageField,
  SCALAR,
  scalarField,
} from "./protobuf-descriptor.js";
import { exportRequestType, readRequest, type ScopeEntryState } from "./protobuf-envelope.js";
import {
  type DataState,
  EXPONENTIAL_POINT,
  HISTOGRAM_POINT,
  NUMBER_POINT,
  type PointState,
  SUMMARY_POINT,
} from "./protobuf-metric-points.js";
import { FieldError } from "./protobuf-wire.js";
import type { MetricBatch, MetricKind, MetricPointRecord } from "./records.js";

/**
 * Descriptors of opentelemetry/proto/metrics/v1/metrics.proto's Metric and its data fields
 * (the points are in protobuf-metric-points.ts), read straight to point records: the same records decodeMetrics (decode-metrics.ts) gives for
 * the same request sent as OTLP/JSON. A Metric closes to its points (the envelope keeps one
 * list per metric), each given the metric's identity then: the name may come after the points.
 */

/** A Metric as it is read: `attributes` are its `metadata`. */
interface MetricState extends AttributeHolder {
  readonly resource: number;
  readonly scope: number;
  name: string;
  description: string;
  unit: string;
  /** The data field read last (a oneof: the last one sent wins), null when none was sent. */
  data: DataState | null;
}

function addPoint(data: DataState, point: MetricPointRecord): void {
  data.points.push(point);
}

/** Gauge, Sum, Histogram, ExponentialHistogram, Summary: data_points = 1, then what each kind adds. */
function dataType(
  name: string,
  kind: MetricKind,
  point: MessageType<PointState, MetricPointRecord, DataState>,
  extra: Field<DataState>[],
): MessageType<DataState, DataState, MetricState> {
  return {
    name: `opentelemetry.proto.metrics.v1.${name}`,
    fields: [repeatedMessageField(1, "dataPoints", point, addPoint, { charge: RECORD_UNITS }), ...extra],
    open: (metric) => ({
      kind,
      resource: metric.resource,
      scope: metric.scope,
      temporality: 0,
      monotonic: false,
      points: [],
    }),
    close: (state) => {
      const problem = temporalityProblem(state.temporality);
      if (problem !== null) throw new FieldError("aggregationTemporality", problem);
      return state;
    },
  };
}

const TEMPORALITY = scalarField(2, "aggregationTemporality", SCALAR.uint32, (data: DataState, temporality: number) => {
  data.temporality = temporality;
});

const GAUGE = dataType("Gauge", "gauge", NUMBER_POINT, []);
const SUM = dataType("Sum", "sum", NUMBER_POINT, [
  TEMPORALITY,
  scalarField(3, "isMonotonic", SCALAR.bool, (data: DataState, monotonic: boolean) => {
    data.monotonic = monotonic;
  }),
]);
const HISTOGRAM = dataType("Histogram", "histogram", HISTOGRAM_POINT, [TEMPORALITY]);
const EXPONENTIAL = dataType("ExponentialHistogram", "exponential_histogram", EXPONENTIAL_POINT, [TEMPORALITY]);
const SUMMARY = dataType("Summary", "summary", SUMMARY_POINT, []);

function setData(metric: MetricState, data: DataState): void {
  metric.data = data;
}

/** Metric: name = 1, description = 2, unit = 3, its data oneof (5, 7, 9, 10, 11), metadata = 12. */
const METRIC: MessageType<MetricState, MetricPointRecord[], ScopeEntryState<MetricPointRecord[]>> = {
  name: "opentelemetry.proto.metrics.v1.Metric",
  fields: [
    scalarField(1, "name", SCALAR.string, (metric: MetricState, name: string) => {
      metric.name = name;
    }),
    scalarField(2, "description", SCALAR.string, (metric: MetricState, description: string) => {
      metric.description = description;
    }),
    scalarField(3, "unit", SCALAR.string, (metric: MetricState, unit: string) => {
      metric.unit = unit;
    }),
    messageField(5, "gauge", GAUGE, setData),
    messageField(7, "sum", SUM, setData),
    messageField(9, "histogram", HISTOGRAM, setData),
    messageField(10, "exponentialHistogram", EXPONENTIAL, setData),
    messageField(11, "summary", SUMMARY, setData),
    attributesField(12, "metadata"),
  ],
  open: (entry) => ({
    resource: entry.resource,
    scope: entry.scope,
    attributes: {},
    name: "",
    description: "",
    unit: "",
    data: null,
  }),
  close(metric) {
    const data = metric.data;
    if (data === null) return [];
    const unnamed = data.points.length > 0 ? nameProblem(metric.name) : null;
    if (unnamed !== null) throw new FieldError("name", unnamed);
    let metadata: string | null = null;
    for (const _key in metric.attributes) {
      metadata = describeAttributes(metric.attributes).json;
      break;
    }
    identify(data.points, {
      name: metric.name,
      description: metric.description,
      unit: metric.unit,
      kind: data.kind,
      temporality: data.kind === "gauge" || data.kind === "summary" ? 0 : data.temporality,
      monotonic: data.kind === "sum" && data.monotonic,
      metadata,
    });
    return data.points;
  },
};

/** opentelemetry/proto/collector/metrics/v1/metrics_service.proto's ExportMetricsServiceRequest. */
export const METRICS_REQUEST = exportRequestType(
  {
    request: "opentelemetry.proto.collector.metrics.v1.ExportMetricsServiceRequest",
    resourceEntry: "opentelemetry.proto.metrics.v1.ResourceMetrics",
    scopeEntry: "opentelemetry.proto.metrics.v1.ScopeMetrics",
    resources: "resourceMetrics",
    scopes: "scopeMetrics",
    items: "metrics",
  },
  METRIC,
);

/**
 * Decodes an OTLP/protobuf ExportMetricsServiceRequest straight to point records: the same
 * records decodeMetrics (decode-metrics.ts) gives for the same request sent as OTLP/JSON.
 * Throws PayloadError naming the field on bad input.
 */
export function decodeMetricProtobuf(body: Buffer): MetricBatch {
  const { resources, scopes, records } = readRequest(body, METRICS_REQUEST);
  return { resources, scopes, points: records.flat() };
}

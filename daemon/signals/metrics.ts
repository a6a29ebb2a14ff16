import { decodeMetricRequest } from "../otlp/decode-request.js";
import type { MetricPointRecord, ResourceRecord, ScopeRecord } from "../otlp/records.js";
import { RecordFilter } from "../store/kept-records.js";
import { metricTrimmer } from "../store/metric-retention.js";
import { MetricWriter } from "../store/metric-writer.js";
import { packedMetricCount, packMetrics, unpackMetricSlices } from "../store/packed-batch.js";
import type { SignalModule } from "./signal-module.js";

/**
 * A point's identity within a request: its series (resource, scope, metric identity, point
 * attributes) and its time, as the store keys it, so a repeat is counted once.
 */
function pointFilter(
  batch: { resources: ResourceRecord[]; scopes: ScopeRecord[] },
  cutoffNs: bigint,
): RecordFilter<MetricPointRecord> {
  return new RecordFilter(
    (point) =>
      `${batch.resources[point.resource]?.hash}\0${batch.scopes[point.scope]?.hash}\0${point.name}\0${point.kind}\0${point.unit}\0${point.temporality}\0${point.monotonic}\0${point.attributes}\0${point.timeNs}`,
    (point) => point.timeNs < cutoffNs,
  );
}

/** OTLP metrics: data points, each with its metric's identity, kept as series (metric-writer.ts). */
export const metrics: SignalModule<"metrics", "points", MetricWriter> = {
  name: "metrics",
  path: "/v1/metrics",
  records: "points",
  countWords: (count) => (count === 1 ? "1 data point" : `${count} data points`),
  rejectedField: "rejectedDataPoints",
  openapi: { operationId: "exportMetrics", requestMessage: "ExportMetricsServiceRequest" },

  decode: (body, format) => packMetrics(decodeMetricRequest(body, format)),

  count: packedMetricCount,

  createWriter: (db, shared) => new MetricWriter(db, shared),

  store(writer, batch, { cutoffNs, receivedNs, sliceRecords }) {
    const filter = pointFilter(batch, cutoffNs);
    let inserted = 0;
    for (const slice of unpackMetricSlices(batch, sliceRecords)) {
      inserted += writer.write({ ...slice, points: filter.keep(slice.points) }, receivedNs);
    }
    return filter.tally(inserted);
  },

  retention: {
    trimmedThrough: "metrics_trimmed_through_ns",
    trimmer: metricTrimmer,
  },
};

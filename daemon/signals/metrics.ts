import { decodeMetricRequest } from "../otlp/decode-request.js";
import { firstLiveAttributeSet } from "../otlp/protobuf-metric-points.js";
import { ReceivedAttributeTexts, SentAttributeTexts } from "../store/attribute-text-crossing.js";
import { pointFilter } from "../store/kept-records.js";
import { metricTrimmer } from "../store/metric-retention.js";
import { MetricWriter } from "../store/metric-writer.js";
import { packedPointCount, packMetricPoints, unpackMetricPoints } from "../store/packed-metric-points.js";
import type { SignalModule } from "./signal-module.js";

/** OTLP metrics: data points, each with its metric's identity, kept as series (metric-writer.ts). */
export const metrics: SignalModule<"metrics", "points", MetricWriter> = {
  name: "metrics",
  path: "/v1/metrics",
  records: "points",
  countWords: (count) => (count === 1 ? "1 data point" : `${count} data points`),
  rejectedField: "rejectedDataPoints",
  openapi: { operationId: "exportMetrics", requestMessage: "ExportMetricsServiceRequest" },

  decode: (body, format) => packMetricPoints(decodeMetricRequest(body, format)),

  count: packedPointCount,

  createWriter: (db, shared) => new MetricWriter(db, shared),

  crossing: {
    sender: () => {
      const sent = new SentAttributeTexts();
      return { leave: (batch) => sent.leave(batch, firstLiveAttributeSet()) };
    },
    receiver: () => new ReceivedAttributeTexts(),
  },

  store(writer, batch, { cutoffNs, receivedNs, sliceRecords }) {
    const filter = pointFilter(batch, cutoffNs);
    let inserted = 0;
    for (const slice of unpackMetricPoints(batch, sliceRecords)) {
      inserted += writer.write({ ...slice, points: filter.keep(slice.points) }, receivedNs);
    }
    return filter.tally(inserted);
  },

  retention: {
    trimmedThrough: "metrics_trimmed_through_ns",
    trimmer: metricTrimmer,
  },
};

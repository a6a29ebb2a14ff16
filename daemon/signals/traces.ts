import { chargeDecoded, RECORD_UNITS } from "../otlp/decode-allowance.js";
import { decodeTraceRequest } from "../otlp/decode-request.js";
import { decodeTraceJsonNatively } from "../otlp/native-json-traces.js";
import { spanFilter } from "../store/kept-records.js";
import { packedSpanCount, packSpans, unpackSpanSlices } from "../store/packed-batch.js";
import { SpanWriter } from "../store/span-writer.js";
import { traceSummaryUpkeep } from "../store/trace-retention.js";
import type { SignalModule } from "./signal-module.js";

/** OTLP traces: spans, with their traces' summaries kept beside them. */
export const traces: SignalModule<"traces", "spans", SpanWriter> = {
  name: "traces",
  path: "/v1/traces",
  records: "spans",
  countWords: (count) => (count === 1 ? "1 span" : `${count} spans`),
  rejectedField: "rejectedSpans",
  openapi: { operationId: "exportTraces", requestMessage: "ExportTraceServiceRequest" },

  /**
   * OTLP/JSON natively where it can, else the JavaScript decoders. The native decoder reads the
   * whole body in one call, so its spans and index entries are charged after it (a large body's
   * objects were counted before, by the decoder thread); the JavaScript decoders charge as they go.
   */
  decode(body, format) {
    const native = format === "json" ? decodeTraceJsonNatively(body) : undefined;
    if (native === undefined) return packSpans(decodeTraceRequest(body, format));
    const spans = packedSpanCount(native);
    chargeDecoded(spans * RECORD_UNITS + (native.indexed.length - spans) / 2);
    return native;
  },

  count: packedSpanCount,

  createWriter: (db, shared) => new SpanWriter(db, shared),

  store(writer, batch, { cutoffNs, receivedNs, sliceRecords }) {
    const filter = spanFilter(cutoffNs);
    let inserted = 0;
    for (const slice of unpackSpanSlices(batch, sliceRecords)) {
      inserted += writer.write({ ...slice, spans: filter.keep(slice.spans) }, receivedNs);
    }
    return filter.tally(inserted);
  },

  retention: {
    table: "spans",
    timeColumn: "start_ns",
    rollupTable: "span_rollups",
    postingsTable: "span_postings",
    hashedPostingsTable: "span_hashed_postings",
    pendingHashesTable: "span_pending_hashes",
    trimmedThrough: "spans_trimmed_through_ns",
    companion: traceSummaryUpkeep,
  },
};

import { decodeLogRequest } from "../otlp/decode-request.js";
import { logFilter } from "../store/kept-records.js";
import { LogWriter } from "../store/log-writer.js";
import { packedLogCount, packLogs, unpackLogSlices } from "../store/packed-batch.js";
import type { SignalModule } from "./signal-module.js";

/** OTLP logs: log records. */
export const logs: SignalModule<"logs", "logs", LogWriter> = {
  name: "logs",
  path: "/v1/logs",
  records: "logs",
  countWords: (count) => (count === 1 ? "1 log record" : `${count} log records`),
  rejectedField: "rejectedLogRecords",
  openapi: { operationId: "exportLogs", requestMessage: "ExportLogsServiceRequest" },

  decode: (body, format) => packLogs(decodeLogRequest(body, format)),

  count: packedLogCount,

  createWriter: (db, shared) => new LogWriter(db, shared),

  store(writer, batch, { cutoffNs, receivedNs, sliceRecords }) {
    const filter = logFilter(cutoffNs, receivedNs);
    let inserted = 0;
    for (const slice of unpackLogSlices(batch, sliceRecords)) {
      inserted += writer.write({ ...slice, logs: filter.keep(slice.logs) }, receivedNs);
    }
    return filter.tally(inserted);
  },

  retention: {
    table: "logs",
    timeColumn: "ts_ns",
    rollupTable: "log_rollups",
    postingsTable: "log_postings",
    hashedPostingsTable: "log_hashed_postings",
    pendingHashesTable: "log_pending_hashes",
    trimmedThrough: "logs_trimmed_through_ns",
  },
};

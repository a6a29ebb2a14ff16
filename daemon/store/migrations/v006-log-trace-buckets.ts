import { LOG_TRACE_BUCKET_SHIFT, type Migration } from "./shared.js";

// Logs that carry a trace context took each new entry of logs_by_trace to a random page, as the
// spans' trace-id keys did, so a commit rewrote pages all over it (docs/PERFORMANCE.md, "What
// moved the numbers"). Keyed by row-id bucket first, as spans_by_span_id, new entries land in
// the newest bucket; logs of a trace are found with one seek per bucket (SqliteReader).
const V6 = `
DROP INDEX logs_by_trace;
CREATE INDEX logs_by_trace ON logs (id >> ${LOG_TRACE_BUCKET_SHIFT}, trace_id, span_id) WHERE trace_id IS NOT NULL;
`;

export const v006LogTraceBuckets: Migration = {
  version: 6,
  description: "the logs' trace index grouped by row-id bucket, so new logs touch only its newest pages",
  up(db) {
    db.exec(V6);
  },
};

import { type Migration, SPAN_ID_BUCKET_SHIFT } from "./shared.js";

// Span ids are random, so an index on them alone takes each new span to a random leaf: every
// commit rewrote most of the index's pages, more as the store grew (docs/PERFORMANCE.md, "What
// moved the numbers"; `npm run bench:span-index` repeats the measurement). Keyed by row-id
// bucket first, new entries land in the last bucket; a lookup by span id seeks once per bucket
// (SqliteReader.span).
const V3 = `
DROP INDEX spans_by_span_id;
CREATE INDEX spans_by_span_id ON spans (id >> ${SPAN_ID_BUCKET_SHIFT}, span_id);
`;

export const v003SpanIdBuckets: Migration = {
  version: 3,
  description: "span-id index grouped by row-id bucket, so new spans touch only its newest pages",
  up(db) {
    db.exec(V3);
  },
};

import { copyTables, type Migration, SPAN_ID_BUCKET_SHIFT, type TableCopy } from "./shared.js";

// A span row paid a byte of its header for each of six fields nearly every span leaves empty,
// and the span's trace and whole span id a second time in the unique index by trace. From this
// version (stored-span-fields.ts, docs/store-density.md):
//
// - `details` holds the trace state, the events, the links and the dropped counts: NULL when the
//   span has none of them, else a JSON object of those it has (`traceState`, `events`, `links`,
//   `droppedAttributesCount`, `droppedEventsCount`, `droppedLinksCount`), the events and links
//   as the JSON text they were.
// - `spans_by_trace` keeps the span id's last two bytes, not the whole id, and is not unique:
//   the writer looks a span of a stored trace up before it stores it, and a lookup of one span
//   of a trace names those bytes (reading the few rows of the trace that share them). The last
//   bytes are the random ones, and tell apart ids that count up; the first bytes of such ids
//   (zero-padded counters) are all alike, and a lookup would then read the whole trace.
// - `spans_by_span_id` keeps the span id's bytes 6 to 8, not 5 to 8: a lookup checks the whole
//   id in each row it reads, and three bytes leave about one row in 256 buckets to read for
//   nothing.
//
// The table is copied, keeping every row id and the AUTOINCREMENT sequence, in ranges of row
// ids so the upgrade reports its progress; the indexes are built after the copy.

const SPANS_TABLE = `
CREATE TABLE spans_v22 (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  trace_key INTEGER NOT NULL,
  -- ids are their bytes, 8 for a span id (stored-ids.ts)
  span_id BLOB NOT NULL,
  parent_span_id BLOB,
  service_id INTEGER NOT NULL,
  resource_id INTEGER NOT NULL,
  scope_id INTEGER NOT NULL,
  -- span_names.id; NULL when the name is kept in name
  name_id INTEGER,
  -- NULL when the name is named by name_id
  name TEXT,
  kind INTEGER NOT NULL,
  start_ns INTEGER NOT NULL,
  -- the end less the start, as sent (negative for an end before the start)
  duration_ns INTEGER NOT NULL,
  status_code INTEGER NOT NULL,
  status_message TEXT,
  flags INTEGER NOT NULL,
  -- key ids and values (attribute-coding.ts)
  attributes BLOB NOT NULL,
  -- trace state, events, links, dropped counts: NULL for none, else JSON (stored-span-fields.ts)
  details TEXT
)`;
const SPANS_COPY = `INSERT INTO spans_v22 SELECT id, trace_key, span_id, parent_span_id, service_id, resource_id,
  scope_id, name_id, name, kind, start_ns, duration_ns, status_code, status_message, flags, attributes,
  CASE WHEN trace_state IS NULL AND coalesce(events, '') = '' AND coalesce(links, '') = ''
      AND dropped_attributes_count = 0 AND dropped_events_count = 0 AND dropped_links_count = 0 THEN NULL
    ELSE '{' || concat_ws(',',
      CASE WHEN trace_state IS NOT NULL THEN '"traceState":' || json_quote(trace_state) END,
      CASE WHEN events <> '' THEN '"events":' || events END,
      CASE WHEN links <> '' THEN '"links":' || links END,
      CASE WHEN dropped_attributes_count <> 0 THEN '"droppedAttributesCount":' || dropped_attributes_count END,
      CASE WHEN dropped_events_count <> 0 THEN '"droppedEventsCount":' || dropped_events_count END,
      CASE WHEN dropped_links_count <> 0 THEN '"droppedLinksCount":' || dropped_links_count END) || '}'
  END
  FROM spans WHERE id >= ? AND id < ? ORDER BY id`;
const SPAN_INDEXES = `
CREATE INDEX spans_by_trace ON spans (trace_key, substr(span_id, 7, 2));
CREATE INDEX spans_by_span_id ON spans (id >> ${SPAN_ID_BUCKET_SHIFT}, substr(span_id, 6, 3));
CREATE INDEX spans_by_start ON spans (start_ns);
CREATE INDEX spans_errors_by_start ON spans (start_ns) WHERE status_code = 2;
`;

const COPIES: readonly TableCopy[] = [
  { table: "spans", key: "id", create: SPANS_TABLE, copy: SPANS_COPY, indexes: SPAN_INDEXES },
];

export const v022LeanSpans: Migration = {
  version: 22,
  description:
    "spans keep their rarely set fields in one column, the index by trace the span id's last two bytes, the index by span id three",
  rewrites: ["spans"],
  progressUnit: "rows",
  up(db, progress) {
    copyTables(db, COPIES, "_v22", progress);
  },
};

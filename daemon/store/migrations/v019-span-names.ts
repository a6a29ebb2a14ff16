import { copyTables, type Migration, SPAN_ID_BUCKET_SHIFT, type TableCopy } from "./shared.js";

// A span kept its name as text (about 15 bytes on the benchmarks' spans), and each trace its
// root span's name, again in two of its indexes; a span also kept its end time, 8 bytes, where
// its duration takes 3 or 4. From this version (docs/store-density.md):
//
// - Span names are kept once, in `span_names`; a span names its own by `name_id`, a trace its
//   root span's by `root_name_id`. Span names are few by design (OpenTelemetry asks for names
//   of low cardinality: `GET /users/{id}`, not the id), but a client may still send a new one
//   per span, and retention never deletes from the table (its ids are never reused). So it is
//   bounded as the attribute value dictionary is (span-names.ts): a name too long for it, or
//   new once it is full, is kept in the row's `name` (`root_name`) instead, its id NULL. Each
//   name is kept one way only. The upgrade puts the most frequent names in the table first.
// - A span keeps `duration_ns`, its end less its start (negative when a client sent an end
//   before the start: the end comes back as it was sent).
// - The trace summaries' index by time no longer holds the trace id (16 bytes): the filters it
//   serves read the other columns, and a page of traces reads its rows. The index by root
//   keeps it: the audit's examples of slow traces per root are read from that index alone
//   (without it the audit took a third longer).
//
// The spans and traces tables are copied, keeping every row id and AUTOINCREMENT sequence, in
// ranges of row ids so the upgrade reports its progress; the indexes are built after the copy.

/** The table's bound and its longest name (span-names.ts; the longest may not change without a migration). */
const MAX_NAMES = 50_000;
const MAX_NAME_BYTES = 256;

const NAMES = `
CREATE TABLE span_names (
  id INTEGER PRIMARY KEY,
  name TEXT NOT NULL UNIQUE
);
INSERT INTO span_names (name) SELECT name FROM (
  SELECT name, count(*) AS spans FROM spans WHERE length(CAST(name AS BLOB)) <= ${MAX_NAME_BYTES}
  GROUP BY name ORDER BY spans DESC, name LIMIT ${MAX_NAMES});
`;
/** Root names no span has (its spans trimmed), in the room left (`?`). */
const ROOT_NAMES = `INSERT OR IGNORE INTO span_names (name) SELECT DISTINCT root_name FROM traces
  WHERE root_name IS NOT NULL AND length(CAST(root_name AS BLOB)) <= ${MAX_NAME_BYTES}
    AND root_name NOT IN (SELECT name FROM span_names) LIMIT ?`;
/** A full table may have turned names away: it takes no new one (span-names.ts). */
const CLOSE = `INSERT INTO meta (key, value) SELECT 'span_names_closed', '1'
  WHERE (SELECT count(*) FROM span_names) >= ${MAX_NAMES}`;

const SPANS_TABLE = `
CREATE TABLE spans_v19 (
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
  trace_state TEXT,
  flags INTEGER NOT NULL,
  -- key ids and values' JSON text, or value ids (attribute-coding.ts)
  attributes BLOB NOT NULL,
  events TEXT,
  links TEXT,
  dropped_attributes_count INTEGER NOT NULL,
  dropped_events_count INTEGER NOT NULL,
  dropped_links_count INTEGER NOT NULL
)`;
const SPANS_COPY = `INSERT INTO spans_v19 SELECT s.id, s.trace_key, s.span_id, s.parent_span_id, s.service_id,
  s.resource_id, s.scope_id, n.id, CASE WHEN n.id IS NULL THEN s.name END, s.kind, s.start_ns, s.end_ns - s.start_ns, s.status_code, s.status_message,
  s.trace_state, s.flags, s.attributes, s.events, s.links, s.dropped_attributes_count, s.dropped_events_count,
  s.dropped_links_count
  FROM spans s LEFT JOIN span_names n ON n.name = s.name WHERE s.id >= ? AND s.id < ? ORDER BY s.id`;
const SPAN_INDEXES = `
CREATE UNIQUE INDEX spans_by_trace ON spans (trace_key, span_id);
CREATE INDEX spans_by_span_id ON spans (id >> ${SPAN_ID_BUCKET_SHIFT}, substr(span_id, 5, 4));
CREATE INDEX spans_by_start ON spans (start_ns);
CREATE INDEX spans_errors_by_start ON spans (start_ns) WHERE status_code = 2;
`;

const TRACES_TABLE = `
CREATE TABLE traces_v19 (
  trace_key INTEGER PRIMARY KEY,
  -- 16 bytes (stored-ids.ts)
  trace_id BLOB NOT NULL,
  start_ns INTEGER NOT NULL,
  end_ns INTEGER NOT NULL,
  span_count INTEGER NOT NULL,
  error_count INTEGER NOT NULL,
  root_span_id BLOB,
  root_service_id INTEGER,
  -- span_names.id; NULL when the name is kept in root_name (or there is no root yet)
  root_name_id INTEGER,
  root_name TEXT
)`;
const TRACES_COPY = `INSERT INTO traces_v19 SELECT t.trace_key, t.trace_id, t.start_ns, t.end_ns, t.span_count,
  t.error_count, t.root_span_id, t.root_service_id, n.id, CASE WHEN n.id IS NULL THEN t.root_name END
  FROM traces t LEFT JOIN span_names n ON n.name = t.root_name WHERE t.trace_key >= ? AND t.trace_key < ?
  ORDER BY t.trace_key`;
const TRACE_INDEXES = `
CREATE UNIQUE INDEX traces_by_id ON traces (trace_id);
CREATE INDEX traces_by_root ON traces (root_service_id, root_name_id, root_name, start_ns, end_ns, error_count, trace_id);
CREATE INDEX traces_by_start ON traces (start_ns, end_ns, error_count, root_service_id, root_name_id, root_name);
`;

const COPIES: readonly TableCopy[] = [
  { table: "traces", key: "trace_key", create: TRACES_TABLE, copy: TRACES_COPY, indexes: TRACE_INDEXES },
  { table: "spans", key: "id", create: SPANS_TABLE, copy: SPANS_COPY, indexes: SPAN_INDEXES },
];

export const v019SpanNames: Migration = {
  version: 19,
  description:
    "span names kept once (up to a bound), named by id in spans and traces; spans keep their duration, not their end",
  rewrites: ["spans", "traces"],
  progressUnit: "rows",
  up(db, progress) {
    db.exec(NAMES);
    const names = Number(db.prepare("SELECT count(*) FROM span_names").pluck().safeIntegers(false).get());
    db.prepare(ROOT_NAMES).run(Math.max(0, MAX_NAMES - names));
    db.exec(CLOSE);
    copyTables(db, COPIES, "_v19", progress);
  },
};

import type Database from "better-sqlite3";
import { type Migration, rebuildKeepingSequence, SPAN_ID_BUCKET_SHIFT } from "./shared.js";

// Trace ids are random, so every index keyed by them takes each new span to a random page: the
// spans' (trace_id, span_id) key alone was rewritten nearly whole by every commit, more as the
// store grew. Traces now get an integer key in order of arrival, and spans, their unique key
// and trace_services refer to a trace by it: a new trace's rows land at the end of each index.
// Only traces' own trace_id index stays random, with one entry per trace instead of per span.
const V5_TABLES = `
CREATE TABLE traces_v5 (
  trace_key INTEGER PRIMARY KEY,
  trace_id TEXT NOT NULL UNIQUE,
  start_ns INTEGER NOT NULL,
  end_ns INTEGER NOT NULL,
  span_count INTEGER NOT NULL,
  error_count INTEGER NOT NULL,
  root_span_id TEXT,
  root_service_id INTEGER,
  root_name TEXT
);
INSERT INTO traces_v5 (trace_id, start_ns, end_ns, span_count, error_count, root_span_id, root_service_id, root_name)
  SELECT trace_id, start_ns, end_ns, span_count, error_count, root_span_id, root_service_id, root_name
  FROM traces ORDER BY start_ns, trace_id;
-- Spans are copied by joining to their trace: a span whose summary is missing (none should be)
-- gets one rather than being left behind.
INSERT INTO traces_v5 (trace_id, start_ns, end_ns, span_count, error_count)
  SELECT trace_id, min(start_ns), max(end_ns), count(*), coalesce(sum(status_code = 2), 0) FROM spans
  WHERE trace_id IN (SELECT trace_id FROM spans EXCEPT SELECT trace_id FROM traces) GROUP BY trace_id;
UPDATE counters SET value = (SELECT count(*) FROM traces_v5) WHERE name = 'traces';
DROP TABLE traces;
ALTER TABLE traces_v5 RENAME TO traces;
-- Still covering, now that trace_id is no longer the table's key.
CREATE INDEX traces_by_start ON traces (start_ns, end_ns, error_count, root_service_id, root_name, trace_id);
CREATE INDEX traces_by_root ON traces (root_service_id, root_name, start_ns, end_ns, error_count, trace_id);

CREATE TABLE trace_services_v5 (
  trace_key INTEGER NOT NULL,
  service_id INTEGER NOT NULL,
  PRIMARY KEY (trace_key, service_id)
) WITHOUT ROWID;
INSERT INTO trace_services_v5 (trace_key, service_id)
  SELECT t.trace_key, ts.service_id FROM trace_services ts JOIN traces t ON t.trace_id = ts.trace_id;
DROP TABLE trace_services;
ALTER TABLE trace_services_v5 RENAME TO trace_services;

CREATE TABLE spans_v5 (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  trace_key INTEGER NOT NULL,
  span_id TEXT NOT NULL,
  trace_id TEXT NOT NULL,
  parent_span_id TEXT,
  service_id INTEGER NOT NULL,
  resource_id INTEGER NOT NULL,
  scope_id INTEGER NOT NULL,
  name TEXT NOT NULL,
  kind INTEGER NOT NULL,
  start_ns INTEGER NOT NULL,
  end_ns INTEGER NOT NULL,
  duration_ns INTEGER NOT NULL,
  status_code INTEGER NOT NULL,
  status_message TEXT,
  trace_state TEXT,
  flags INTEGER NOT NULL,
  attributes TEXT NOT NULL,
  events TEXT,
  links TEXT,
  dropped_attributes_count INTEGER NOT NULL,
  dropped_events_count INTEGER NOT NULL,
  dropped_links_count INTEGER NOT NULL,
  UNIQUE (trace_key, span_id)
);
INSERT INTO spans_v5 SELECT s.id, t.trace_key, s.span_id, s.trace_id, s.parent_span_id, s.service_id, s.resource_id,
  s.scope_id, s.name, s.kind, s.start_ns, s.end_ns, s.duration_ns, s.status_code, s.status_message, s.trace_state,
  s.flags, s.attributes, s.events, s.links, s.dropped_attributes_count, s.dropped_events_count, s.dropped_links_count
  FROM spans s JOIN traces t ON t.trace_id = s.trace_id ORDER BY s.id;
`;

const V5_INDEXES = `
CREATE INDEX spans_by_start ON spans (start_ns);
CREATE INDEX spans_by_span_id ON spans (id >> ${SPAN_ID_BUCKET_SHIFT}, span_id);
CREATE INDEX spans_errors_by_start ON spans (start_ns) WHERE status_code = 2;
`;

function migrateToTraceKeys(db: Database.Database): void {
  rebuildKeepingSequence(db, "spans", V5_TABLES, "spans_v5");
  db.exec(V5_INDEXES);
}

export const v005TraceKeys: Migration = {
  version: 5,
  description: "traces keyed by arrival order; spans and trace services refer to them by that key",
  rewrites: ["spans", "traces", "trace_services"],
  up(db) {
    migrateToTraceKeys(db);
  },
};

import type Database from "better-sqlite3";
import { codeAttributes, LastKeys, storableKey } from "../attribute-coding.js";
import { LOG_TRACE_BUCKET_SHIFT, type Migration, rebuildKeepingSequence, SPAN_ID_BUCKET_SHIFT } from "./shared.js";

// A span's attributes were JSON text, every key's name written out in every row: about 170 of
// a span's 480 bytes on the ingest benchmark's spans (docs/store-density.md). From this version
// spans and log records keep them coded (attribute-coding.ts): each key as its id in attr_keys,
// each value's JSON text as it was. A span no longer repeats its trace's id (its trace_key
// names the trace, whose row holds the id) nor its duration (end_ns - start_ns, 0 when the end
// is not after the start, as the writer always computed it). The tables are copied (a row made
// shorter in place would leave its page as full as it was), keeping every row id and the
// AUTOINCREMENT sequence.
//
// The coder is the writer's own. A later change to the coded form needs a migration of its own,
// and then this step keeps the coder it was written with, copied in here. Schema 20 tagged the
// form; this step turns the writer's tagged blob back into the layout it wrote (`untagged`):
// the same text, so the same answers, whichever layout a store holds.

/**
 * The layout of schema versions 12 to 19 (per attribute: key id, byte length, the value's JSON
 * text) of a blob in schema 20's tagged layout (a 0 byte, then per attribute a varint tag
 * `payload * 8 + named * 4 + kind`, the key's difference after a named tag; kinds 0 text, 1 a
 * string without its quotes, 2 a zigzag integer, 3 a dictionary id, which this step never
 * writes). A blob kept whole or empty is returned as it is.
 */
function untagged(tagged: Buffer): Buffer {
  if (tagged.length === 0 || tagged[0] !== 0) return tagged;
  const parts: Buffer[] = [];
  const push = (value: number) => {
    const bytes: number[] = [];
    let rest = value;
    while (rest >= 0x80) {
      bytes.push((rest % 0x80) | 0x80);
      rest = Math.floor(rest / 0x80);
    }
    bytes.push(rest);
    parts.push(Buffer.from(bytes));
  };
  let pos = 1;
  const read = () => {
    let value = 0;
    let scale = 1;
    for (;;) {
      const byte = tagged[pos++] as number;
      value += (byte & 0x7f) * scale;
      if (byte < 0x80) return value;
      scale *= 0x80;
    }
  };
  const unzigzag = (value: number) => (value % 2 === 0 ? value / 2 : -(value + 1) / 2);
  let key = 0;
  while (pos < tagged.length) {
    const tag = read();
    const kind = tag % 4;
    const payload = Math.floor(tag / 8);
    key += 1 + (Math.floor(tag / 4) % 2 === 1 ? unzigzag(read()) : 0);
    if (kind === 3) throw new Error("version 12 keeps no value in a dictionary");
    let text: Buffer;
    if (kind === 2) text = Buffer.from(String(unzigzag(payload)));
    else {
      text = tagged.subarray(pos, pos + payload);
      pos += payload;
      if (kind === 1) text = Buffer.concat([Buffer.from('"'), text, Buffer.from('"')]);
    }
    push(key);
    push(text.length);
    parts.push(text);
  }
  return Buffer.concat(parts);
}

/** Rows coded between progress reports. */
const REPORT_EVERY = 50_000;

const SPANS = `
CREATE TABLE spans_v12 (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  trace_key INTEGER NOT NULL,
  span_id TEXT NOT NULL,
  parent_span_id TEXT,
  service_id INTEGER NOT NULL,
  resource_id INTEGER NOT NULL,
  scope_id INTEGER NOT NULL,
  name TEXT NOT NULL,
  kind INTEGER NOT NULL,
  start_ns INTEGER NOT NULL,
  end_ns INTEGER NOT NULL,
  status_code INTEGER NOT NULL,
  status_message TEXT,
  trace_state TEXT,
  flags INTEGER NOT NULL,
  -- key ids and values' JSON text (attribute-coding.ts)
  attributes BLOB NOT NULL,
  events TEXT,
  links TEXT,
  dropped_attributes_count INTEGER NOT NULL,
  dropped_events_count INTEGER NOT NULL,
  dropped_links_count INTEGER NOT NULL,
  UNIQUE (trace_key, span_id)
);
INSERT INTO spans_v12 SELECT id, trace_key, span_id, parent_span_id, service_id, resource_id, scope_id,
  name, kind, start_ns, end_ns, status_code, status_message, trace_state, flags,
  obs_v12_code(attributes), events, links, dropped_attributes_count, dropped_events_count, dropped_links_count
  FROM spans ORDER BY id;
`;

/** Summaries for spans whose trace key names no summary (the keys found from the spans' unique index). */
const REPAIR_SUMMARIES = `
INSERT OR IGNORE INTO traces (trace_key, trace_id, start_ns, end_ns, span_count, error_count)
  SELECT s.trace_key, min(s.trace_id), min(s.start_ns), max(s.end_ns), count(*), coalesce(sum(s.status_code = 2), 0)
  FROM spans s WHERE s.trace_key IN (
    SELECT k FROM (SELECT DISTINCT trace_key AS k FROM spans) WHERE NOT EXISTS (SELECT 1 FROM traces t WHERE t.trace_key = k))
  GROUP BY s.trace_key`;

const SPAN_INDEXES = `
CREATE INDEX spans_by_span_id ON spans (id >> ${SPAN_ID_BUCKET_SHIFT}, span_id);
CREATE INDEX spans_by_start ON spans (start_ns);
CREATE INDEX spans_errors_by_start ON spans (start_ns) WHERE status_code = 2;
`;

const LOGS = `
CREATE TABLE logs_v12 (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  hash BLOB NOT NULL,
  -- ts_ns orders logs: the record time, else the observed time, else the time it was received.
  ts_ns INTEGER NOT NULL,
  time_ns INTEGER NOT NULL,
  observed_ns INTEGER NOT NULL,
  severity_number INTEGER NOT NULL,
  severity_text TEXT,
  body TEXT,
  -- key ids and values' JSON text (attribute-coding.ts)
  attributes BLOB NOT NULL,
  trace_id TEXT,
  span_id TEXT,
  flags INTEGER NOT NULL,
  event_name TEXT,
  dropped_attributes_count INTEGER NOT NULL,
  service_id INTEGER NOT NULL,
  resource_id INTEGER NOT NULL,
  scope_id INTEGER NOT NULL
);
INSERT INTO logs_v12 SELECT id, hash, ts_ns, time_ns, observed_ns, severity_number, severity_text, body,
  obs_v12_code(attributes), trace_id, span_id, flags, event_name, dropped_attributes_count, service_id, resource_id, scope_id
  FROM logs ORDER BY id;
`;

const LOG_INDEXES = `
CREATE UNIQUE INDEX logs_by_content ON logs (CASE WHEN time_ns <> 0 THEN time_ns ELSE observed_ns END, hash);
CREATE INDEX logs_by_trace ON logs (id >> ${LOG_TRACE_BUCKET_SHIFT}, trace_id, span_id) WHERE trace_id IS NOT NULL;
CREATE INDEX logs_by_ts ON logs (ts_ns);
CREATE INDEX logs_warnings_by_service ON logs (service_id, ts_ns, trace_id) WHERE severity_number >= 13;
`;

/**
 * Key ids for the coder while the copy runs: the dictionary's own, and new ids (after its
 * largest) for keys it lacks, which are added to attr_keys once the copy is done (a function
 * cannot write through the connection running the statement that calls it).
 */
class KeyIds {
  private readonly byKey = new Map<string, number>();
  private readonly byJson = new Map<string, number>();
  private readonly added: [number, string][] = [];
  private next: number;

  constructor(private readonly db: Database.Database) {
    const rows = db.prepare("SELECT id, key FROM attr_keys").raw().safeIntegers(false).all() as [number, string][];
    for (const [id, key] of rows) this.byKey.set(key, id);
    this.next = rows.reduce((max, [id]) => Math.max(max, id), 0) + 1;
  }

  idOfJson = (keyJson: string): number => {
    const known = this.byJson.get(keyJson);
    if (known !== undefined) return known;
    const key = JSON.parse(keyJson) as string;
    let id = -1;
    // A key with a lone surrogate does not come back from attr_keys the same: kept whole.
    if (JSON.stringify(key) === keyJson && storableKey(key)) {
      id = this.byKey.get(key) ?? this.next++;
      if (!this.byKey.has(key)) {
        this.byKey.set(key, id);
        this.added.push([id, key]);
      }
    }
    this.byJson.set(keyJson, id);
    return id;
  };

  /** Adds the keys the copy named that the dictionary lacked. */
  save(): void {
    const insert = this.db.prepare("INSERT INTO attr_keys (id, key) VALUES (?, ?)");
    for (const [id, key] of this.added) insert.run(id, key);
  }
}

export const v012CodedAttributes: Migration = {
  version: 12,
  description:
    "span and log attributes keep each key as its dictionary id, not its name; spans name their trace by key alone",
  rewrites: ["spans", "logs"],
  progressUnit: "rows",
  up(db, progress) {
    const count = (table: string) =>
      Number(db.prepare(`SELECT count(*) FROM ${table}`).pluck().safeIntegers(false).get());
    const total = count("spans") + count("logs");
    const keys = new KeyIds(db);
    const lastKeys = new LastKeys();
    let done = 0;
    db.function("obs_v12_code", { deterministic: true }, (json: unknown) => {
      done++;
      if (done % REPORT_EVERY === 0) progress(done, total);
      // Attributes were always JSON text; anything else fails the step, rolled back whole.
      if (typeof json !== "string") throw new Error("stored attributes that are not JSON text");
      return untagged(codeAttributes(json, keys.idOfJson, lastKeys));
    });
    // A span whose trace has no summary (none should: the writer makes it first, retention
    // drops it last) would lose its trace's id with this step: it gets one first, as in v5.
    if (db.prepare(REPAIR_SUMMARIES).run().changes > 0) {
      db.exec("UPDATE counters SET value = (SELECT count(*) FROM traces) WHERE name = 'traces'");
    }
    rebuildKeepingSequence(db, "spans", SPANS, "spans_v12");
    db.exec(SPAN_INDEXES);
    rebuildKeepingSequence(db, "logs", LOGS, "logs_v12");
    db.exec(LOG_INDEXES);
    keys.save();
    progress(total, total);
  },
};

/**
 * bench/density-layout: the measurements behind docs/store-density.md. How many bytes the
 * store spends per span and per log record, where they go, and what each denser layout would
 * save, on the workloads the issue names: bench/ingest's spans (traces of 8 spans, 10
 * attributes each) and bench/query's log records.
 *
 * 1. Today: a store filled by the real writer (decoded OTLP/protobuf, 8 requests per
 *    transaction, as bench/ingest's raw ceiling), checkpointed; bytes per span of the file and
 *    of each table and index (dbstat). The same for logs, from bench/query's dataset builder.
 * 2. Alternatives: the same rows copied, in id order, into one fresh store per layout (16 KiB
 *    pages, as obsd's), each table with the indexes it needs; bytes per row of the table, its
 *    indexes and any dictionary it needs, beside a copy of today's layout made the same way,
 *    so that the copy, not the writer's page splits, is what each is compared with. Writing
 *    costs (µs per row: encoding and inserting) and reading costs (µs per row to turn a coded
 *    row back into today's text, checked byte for byte) come from the same run.
 *
 *   npm run bench:density-layout   (LAYOUT_BATCHES=164 LAYOUT_LOGS=100000)
 */
import { createHash } from "node:crypto";
import { rmSync, statSync } from "node:fs";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { deflateRawSync, inflateRawSync } from "node:zlib";
import Database from "better-sqlite3";
import { decodeTraceRequest } from "../daemon/otlp/decode-request.js";
import { AttributeKeys } from "../daemon/query/attribute-keys.js";
import { openWriteConnection } from "../daemon/store/connection.js";
import { PostingPacker } from "../daemon/store/posting-packer.js";
import { decodePostingRows, encodePostingRows } from "../daemon/store/posting-rows.js";
import { idHex, optionalIdHex } from "../daemon/store/stored-ids.js";
import {
  logObservedSql,
  logSeverityTextSql,
  logTimeSql,
  storedSeverityText,
} from "../daemon/store/stored-log-fields.js";
import { storedDetails } from "../daemon/store/stored-span-fields.js";
import { TelemetryWriter } from "../daemon/store/telemetry-writer.js";
import { attributesBeforeV20 } from "../test/helpers/older-stored-forms.js";
import { tempDir } from "../test/helpers/temp-dir.js";
import { AttributeDictionary, decodeAttributes, encodeAttributes } from "./attribute-coding.js";
import { round } from "./measure.js";
import { buildQueryDataset } from "./query-dataset.js";
import { makeWorkload } from "./span-workload.js";

const BATCHES = Number(process.env.LAYOUT_BATCHES ?? 164);
const LOGS = Number(process.env.LAYOUT_LOGS ?? 100_000);
const PER_TRANSACTION = 8;
const ROWS_PER_COMMIT = 4096;

type Row = Record<string, unknown>;

function objectBytes(db: Database.Database, schema = "main"): Map<string, number> {
  const rows = db.prepare(`SELECT name, sum(pgsize) AS bytes FROM dbstat(?) GROUP BY name`).all(schema) as {
    name: string;
    bytes: number | bigint;
  }[];
  return new Map(rows.map((row) => [row.name, Number(row.bytes)]));
}

function freshStore(path: string): Database.Database {
  const db = new Database(path);
  db.pragma("auto_vacuum = INCREMENTAL");
  db.pragma("page_size = 16384");
  db.exec("VACUUM");
  db.pragma("journal_mode = WAL");
  db.pragma("synchronous = NORMAL");
  db.defaultSafeIntegers(true);
  return db;
}

/**
 * Today's spans, written by the real writer from bench/ingest's workload, with the posting
 * buckets they fill packed between commits as obsd's writer packs them (`packPostings`), or
 * the postings left as the writer writes them.
 */
function fillSpans(path: string, packPostings: boolean): { spans: number; fileBytes: number; seconds: number } {
  const nowNs = BigInt(Date.now()) * 1_000_000n;
  const workload = makeWorkload(BATCHES, 7, nowNs);
  const { db } = openWriteConnection(path);
  const writer = new TelemetryWriter(db, 0n);
  const packer = new PostingPacker(db, writer.hashedKeys);
  const batches = workload.protobuf.map((body) => decodeTraceRequest(body, "protobuf"));
  const started = performance.now();
  for (let i = 0; i < batches.length; i += PER_TRANSACTION) {
    const group = batches.slice(i, i + PER_TRANSACTION);
    writer.transaction(() => {
      for (const batch of group) writer.writeSpans(batch, nowNs);
    });
    while (packPostings && packer.packNext()) {}
  }
  const seconds = (performance.now() - started) / 1000;
  db.pragma("wal_checkpoint(TRUNCATE)");
  const spans = Number(db.prepare("SELECT count(*) FROM spans").pluck().get());
  db.close();
  return { spans, fileBytes: statSync(path).size, seconds };
}

/** Bytes per row of `names` (tables, indexes, dictionaries) in `db`. */
function perRow(db: Database.Database, names: string[], rows: number): number {
  const sizes = objectBytes(db);
  return names.reduce((sum, name) => sum + (sizes.get(name) ?? 0), 0) / rows;
}

/** A layout: its DDL (tables and indexes named with `t`), and a row of today's turned into its values. */
interface Layout {
  name: string;
  ddl: (t: string) => string;
  columns: string[];
  /** The row's values, or null for a row the layout keeps elsewhere (its `extra`). */
  values: (row: Row) => unknown[] | null;
  /** Extra objects whose bytes count (a dictionary), filled after the rows. */
  extra?: (db: Database.Database, t: string) => string[];
}

interface LayoutResult {
  layout: string;
  bytesPerRow: number;
  writeUsPerRow: number;
}

/** Copies `source` rows into layout `layout` of `db`; bytes and time per row. */
function measureLayout(db: Database.Database, layout: Layout, t: string, source: Row[]): LayoutResult {
  db.exec(layout.ddl(t));
  const insert = db.prepare(
    `INSERT INTO ${t} (${layout.columns.join(", ")}) VALUES (${layout.columns.map(() => "?").join(", ")})`,
  );
  const started = performance.now();
  for (let i = 0; i < source.length; i += ROWS_PER_COMMIT) {
    db.transaction(() => {
      for (const row of source.slice(i, i + ROWS_PER_COMMIT)) {
        const values = layout.values(row);
        if (values !== null) insert.run(values);
      }
    })();
  }
  const extra = layout.extra?.(db, t) ?? [];
  const seconds = (performance.now() - started) / 1000;
  db.pragma("wal_checkpoint(TRUNCATE)");
  const names = (db.prepare("SELECT name FROM sqlite_schema WHERE tbl_name = ?").pluck().all(t) as string[]).concat(
    extra,
  );
  return {
    layout: layout.name,
    bytesPerRow: round(perRow(db, names, source.length), 1),
    writeUsPerRow: round((seconds * 1e6) / source.length, 2),
  };
}

const blob = (hex: unknown): Buffer | null => (typeof hex === "string" ? Buffer.from(hex, "hex") : null);

/** Keys whose string values repeat (at most one distinct value in `ratio` of occurrences). */
function repeatingKeys(rows: Row[], ratio: number): Set<string> {
  const seen = new Map<string, { n: number; values: Set<string> }>();
  for (const row of rows) {
    for (const [key, value] of Object.entries(JSON.parse(row.attributes as string) as Record<string, unknown>)) {
      if (typeof value !== "string") continue;
      let entry = seen.get(key);
      if (entry === undefined) {
        entry = { n: 0, values: new Set() };
        seen.set(key, entry);
      }
      entry.n++;
      entry.values.add(value);
    }
  }
  return new Set([...seen].filter(([, e]) => e.values.size <= e.n * ratio).map(([key]) => key));
}

/** The dictionary as tables: keys, and values per key (what a coded store would keep). */
function writeDictionary(db: Database.Database, t: string, dict: AttributeDictionary): string[] {
  db.exec(`CREATE TABLE ${t}_keys (id INTEGER PRIMARY KEY, key TEXT NOT NULL UNIQUE);
    CREATE TABLE ${t}_values (id INTEGER PRIMARY KEY, key_id INTEGER NOT NULL, value TEXT NOT NULL, UNIQUE (key_id, value));`);
  const keyInsert = db.prepare(`INSERT INTO ${t}_keys (id, key) VALUES (?, ?)`);
  const valueInsert = db.prepare(`INSERT INTO ${t}_values (id, key_id, value) VALUES (?, ?, ?)`);
  db.transaction(() => {
    dict.keyNames.forEach((key, id) => {
      keyInsert.run(id, key);
    });
    for (const [composite, id] of dict.values) {
      const cut = composite.indexOf("\0");
      valueInsert.run(id, Number(composite.slice(0, cut)), composite.slice(cut + 1));
    }
  })();
  return db
    .prepare("SELECT name FROM sqlite_schema WHERE tbl_name IN (?, ?)")
    .pluck()
    .all(`${t}_keys`, `${t}_values`) as string[];
}

/** µs per row to turn coded attributes back into text, and how many came back different. */
function decodeCost(rows: Row[], coded: Buffer[], dict: AttributeDictionary): { us: number; mismatches: number } {
  let mismatches = 0;
  const started = performance.now();
  for (let i = 0; i < rows.length; i++) {
    if (decodeAttributes(coded[i] as Buffer, dict) !== rows[i]?.attributes) mismatches++;
  }
  return { us: round(((performance.now() - started) * 1000) / rows.length, 2), mismatches };
}

/** The spans table as schema 22 has it (migrations/v022-lean-spans.ts). */
function spansV22Ddl(t: string): string {
  return `CREATE TABLE ${t} (
    id INTEGER PRIMARY KEY AUTOINCREMENT, trace_key INTEGER NOT NULL, span_id BLOB NOT NULL, parent_span_id BLOB,
    service_id INTEGER NOT NULL, resource_id INTEGER NOT NULL, scope_id INTEGER NOT NULL, name_id INTEGER, name TEXT,
    kind INTEGER NOT NULL, start_ns INTEGER NOT NULL, duration_ns INTEGER NOT NULL, status_code INTEGER NOT NULL,
    status_message TEXT, flags INTEGER NOT NULL, attributes BLOB NOT NULL, details TEXT);
  CREATE INDEX ${t}_by_trace ON ${t} (trace_key, substr(span_id, 1, 2));
  CREATE INDEX ${t}_by_span_id ON ${t} (id >> 16, substr(span_id, 6, 3));
  CREATE INDEX ${t}_by_start ON ${t} (start_ns);
  CREATE INDEX ${t}_errors_by_start ON ${t} (start_ns) WHERE status_code = 2;`;
}

/**
 * The spans table as schema 11 had it (with `v12`, as schema 12 has it: no trace id, no
 * duration; with `v19`, as schema 19 has it: the name by id, the duration instead of the end),
 * with the id and attribute columns' types given; with BLOB ids the span-id index keeps the
 * id's last 4 bytes, as schema 16 does.
 */
function spansDdl(
  t: string,
  idType: string,
  attributesType: string,
  bySpanId = true,
  v12 = false,
  v19 = false,
): string {
  return `CREATE TABLE ${t} (
    id INTEGER PRIMARY KEY AUTOINCREMENT, trace_key INTEGER NOT NULL, span_id ${idType} NOT NULL,
    ${v12 ? "" : `trace_id ${idType} NOT NULL,`}
    parent_span_id ${idType}, service_id INTEGER NOT NULL, resource_id INTEGER NOT NULL, scope_id INTEGER NOT NULL,
    ${v19 ? "name_id INTEGER, name TEXT" : "name TEXT NOT NULL"}, kind INTEGER NOT NULL, start_ns INTEGER NOT NULL,
    ${v19 ? "duration_ns" : "end_ns"} INTEGER NOT NULL,
    ${v12 ? "" : "duration_ns INTEGER NOT NULL,"} status_code INTEGER NOT NULL, status_message TEXT, trace_state TEXT,
    flags INTEGER NOT NULL, attributes ${attributesType} NOT NULL, events TEXT, links TEXT,
    dropped_attributes_count INTEGER NOT NULL, dropped_events_count INTEGER NOT NULL,
    dropped_links_count INTEGER NOT NULL, UNIQUE (trace_key, span_id));
  ${bySpanId ? `CREATE INDEX ${t}_by_span_id ON ${t} (id >> 16, ${idType === "BLOB" ? "substr(span_id, 5, 4)" : "span_id"});` : ""}
  CREATE INDEX ${t}_by_start ON ${t} (start_ns);
  CREATE INDEX ${t}_errors_by_start ON ${t} (start_ns) WHERE status_code = 2;`;
}

/** The store's value dictionary (attr_values, schema 14), which today's coded rows name values in. */
type StoredValues = [number, Buffer][];

/** Today's value dictionary as a table of the layout's own, counted with it. */
function writeValues(db: Database.Database, t: string, values: StoredValues): string[] {
  db.exec(`CREATE TABLE ${t}_attr_values (id INTEGER PRIMARY KEY, value BLOB NOT NULL UNIQUE)`);
  const insert = db.prepare(`INSERT INTO ${t}_attr_values (id, value) VALUES (?, ?)`);
  db.transaction(() => {
    for (const [id, value] of values) insert.run(id, value);
  })();
  return [`${t}_attr_values`, `sqlite_autoindex_${t}_attr_values_1`];
}

/**
 * A table's rows in id order with `attributes` as JSON text (what the alternatives code from),
 * each row's attributes as the store keeps them (coded, schema 14), by row id, and the store's
 * value dictionary.
 */
function rowsWithJson(
  db: Database.Database,
  table: string,
): { rows: Row[]; stored: Map<unknown, unknown>; values: StoredValues } {
  const keys = new AttributeKeys(db);
  // Spans as schema 11 kept them, with their trace's id and their duration, ids as hex text, and
  // the fields schema 22 keeps in `details` in columns of their own (the alternatives below start
  // from that layout).
  const select =
    table === "spans"
      ? `SELECT s.id, s.trace_key, ${idHex("s.span_id")} AS span_id, ${idHex("t.trace_id")} AS trace_id,
           ${optionalIdHex("s.parent_span_id")} AS parent_span_id, s.service_id, s.resource_id, s.scope_id,
           coalesce(n.name, s.name) AS name, s.kind, s.start_ns, s.start_ns + s.duration_ns AS end_ns, max(s.duration_ns, 0) AS duration_ns,
           s.status_code, s.status_message, json_extract(s.details, '$.traceState') AS trace_state, s.flags,
           s.attributes, json_extract(s.details, '$.events') AS events, json_extract(s.details, '$.links') AS links,
           coalesce(json_extract(s.details, '$.droppedAttributesCount'), 0) AS dropped_attributes_count,
           coalesce(json_extract(s.details, '$.droppedEventsCount'), 0) AS dropped_events_count,
           coalesce(json_extract(s.details, '$.droppedLinksCount'), 0) AS dropped_links_count
         FROM spans s JOIN traces t ON t.trace_key = s.trace_key LEFT JOIN span_names n ON n.id = s.name_id ORDER BY s.id`
      : // Log records as schema 17 kept them: their times whole, their severity text as sent.
        `SELECT id, hash, ts_ns, ${logTimeSql(table)} AS time_ns, ${logObservedSql(table)} AS observed_ns,
           severity_number, ${logSeverityTextSql(table)} AS severity_text, body, attributes, ${optionalIdHex("trace_id")} AS trace_id,
           ${optionalIdHex("span_id")} AS span_id, flags, event_name, dropped_attributes_count, service_id,
           resource_id, scope_id
         FROM ${table} ORDER BY id`;
  const rows = db.prepare(select).all() as Row[];
  const stored = new Map(rows.map((row) => [row.id, row.attributes]));
  const values = db.prepare("SELECT id, value FROM attr_values ORDER BY id").raw().all() as StoredValues;
  return { rows: rows.map((row) => ({ ...row, attributes: keys.json(row.attributes as Buffer) })), stored, values };
}

function spanLayouts(
  rows: Row[],
  stored: Map<unknown, unknown>,
  values: StoredValues,
): { layouts: Layout[]; decode: Record<string, { us: number; mismatches: number }> } {
  // Schema 11's columns, in its table's order (rowsWithJson); each layout keeps them, schema 12's drops two.
  const spanColumns = Object.keys(rows[0] ?? {});
  const v12Columns = spanColumns.filter((c) => c !== "trace_id" && c !== "duration_ns");
  const plain = (row: Row) => spanColumns.map((c) => row[c]);
  const withIds = (row: Row) =>
    spanColumns.map((c) => (c === "span_id" || c === "trace_id" || c === "parent_span_id" ? blob(row[c]) : row[c]));
  const repeating = repeatingKeys(rows, 0.1);
  const decode: Record<string, { us: number; mismatches: number }> = {};
  // Coded forms are made once (their encoding is timed apart from the inserts).
  const coded = (name: string, pick: (key: string) => boolean) => {
    const dict = new AttributeDictionary();
    const started = performance.now();
    const bytes = rows.map((row) => encodeAttributes(row.attributes as string, dict, pick));
    const encodeUs = ((performance.now() - started) * 1000) / rows.length;
    decode[name] = decodeCost(rows, bytes, dict);
    return { dict, bytes, encodeUs };
  };
  const all = coded("attributes coded, every string in the dictionary", () => true);
  const some = coded("attributes coded, dictionary for repeating keys", (key) => repeating.has(key));
  const keysOnly = coded("attributes coded, keys only (values inline)", () => false);
  // A preset dictionary of the first rows' attributes: deflate finds the keys and common values in it.
  const preset = Buffer.from(
    rows
      .slice(0, 64)
      .map((row) => row.attributes)
      .join(""),
  );
  const deflateStarted = performance.now();
  const deflated = rows.map((row) => deflateRawSync(row.attributes as string, { dictionary: preset, level: 6 }));
  const deflateUs = ((performance.now() - deflateStarted) * 1000) / rows.length;
  const inflateStarted = performance.now();
  let inflateMismatches = 0;
  deflated.forEach((bytes, i) => {
    if (inflateRawSync(bytes, { dictionary: preset }).toString() !== rows[i]?.attributes) inflateMismatches++;
  });
  decode["attributes deflated (preset dictionary)"] = {
    us: round(((performance.now() - inflateStarted) * 1000) / rows.length, 2),
    mismatches: inflateMismatches,
  };
  const index = new Map(rows.map((row, i) => [row.id, i]));
  const attributeAt = (source: Buffer[], row: Row) => source[index.get(row.id) as number];
  const replaceAttributes = (values: unknown[], value: unknown) => {
    values[spanColumns.indexOf("attributes")] = value;
    return values;
  };
  // Schema 19: names by id (a table of them, counted; the row's own name column empty),
  // durations instead of ends.
  const v19Columns = v12Columns.flatMap((c) =>
    c === "name" ? ["name_id", "name"] : c === "end_ns" ? ["duration_ns"] : [c],
  );
  const nameIds = new Map<unknown, number>();
  for (const row of rows) if (!nameIds.has(row.name)) nameIds.set(row.name, nameIds.size + 1);
  const names = (db: Database.Database, t: string) => {
    db.exec(`CREATE TABLE ${t}_names (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE)`);
    const insert = db.prepare(`INSERT INTO ${t}_names (id, name) VALUES (?, ?)`);
    for (const [name, id] of nameIds) insert.run(id, name);
    return [...writeValues(db, t, values), `${t}_names`, `sqlite_autoindex_${t}_names_1`];
  };
  // Schema 22: the rarely set fields in `details`, tagged attributes (schema 20, as the store
  // keeps them today); the schemas before keep attributes as versions 12 to 19 wrote them.
  const detailFields = new Set([
    "trace_state",
    "events",
    "links",
    "dropped_attributes_count",
    "dropped_events_count",
    "dropped_links_count",
  ]);
  const v22Columns = [...v19Columns.filter((c) => !detailFields.has(c)), "details"];
  const untagged = (row: Row) => attributesBeforeV20(stored.get(row.id));
  const layouts: Layout[] = [
    {
      name: "today (copy): rarely set fields in one column, a two-byte span key by trace, tagged attributes (schema 22)",
      ddl: spansV22Ddl,
      columns: v22Columns,
      values: (row) => [
        ...v12Columns
          .filter((c) => !detailFields.has(c))
          .flatMap((c) => {
            if (c === "attributes") return [stored.get(row.id)];
            if (c === "span_id" || c === "parent_span_id") return [blob(row[c])];
            if (c === "name") return [nameIds.get(row.name), null];
            if (c === "end_ns") return [(row.end_ns as bigint) - (row.start_ns as bigint)];
            return [row[c]];
          }),
        storedDetails({
          traceState: row.trace_state as string | null,
          events: row.events as string | null,
          links: row.links as string | null,
          droppedAttributesCount: Number(row.dropped_attributes_count),
          droppedEventsCount: Number(row.dropped_events_count),
          droppedLinksCount: Number(row.dropped_links_count),
        }),
      ],
      extra: names,
    },
    {
      name: "schema 19: names by id, durations, not ends",
      ddl: (t) => spansDdl(t, "BLOB", "BLOB", true, true, true),
      columns: v19Columns,
      values: (row) =>
        v12Columns.flatMap((c) => {
          if (c === "attributes") return [untagged(row)];
          if (c === "span_id" || c === "parent_span_id") return [blob(row[c])];
          if (c === "name") return [nameIds.get(row.name), null];
          if (c === "end_ns") return [(row.end_ns as bigint) - (row.start_ns as bigint)];
          return [row[c]];
        }),
      extra: names,
    },
    {
      name: "schemas 16 to 18: ids as bytes, keys as ids, repeating values in a dictionary",
      ddl: (t) => spansDdl(t, "BLOB", "BLOB", true, true),
      columns: v12Columns,
      values: (row) =>
        v12Columns.map((c) =>
          c === "attributes" ? untagged(row) : c === "span_id" || c === "parent_span_id" ? blob(row[c]) : row[c],
        ),
      extra: (db, t) => writeValues(db, t, values),
    },
    {
      name: "schemas 14 and 15: the same with span and parent ids as hex text",
      ddl: (t) => spansDdl(t, "TEXT", "BLOB", true, true),
      columns: v12Columns,
      values: (row) => v12Columns.map((c) => (c === "attributes" ? untagged(row) : row[c])),
      extra: (db, t) => writeValues(db, t, values),
    },
    {
      name: "attributes as JSON text (schema 11)",
      ddl: (t) => spansDdl(t, "TEXT", "TEXT"),
      columns: spanColumns,
      values: plain,
    },
    {
      name: "schema 11 without spans_by_span_id",
      ddl: (t) => spansDdl(t, "TEXT", "TEXT", false),
      columns: spanColumns,
      values: plain,
    },
    { name: "ids as blobs", ddl: (t) => spansDdl(t, "BLOB", "TEXT"), columns: spanColumns, values: withIds },
    {
      name: "attributes coded, every string in the dictionary",
      ddl: (t) => spansDdl(t, "TEXT", "BLOB"),
      columns: spanColumns,
      values: (row) => replaceAttributes(plain(row), attributeAt(all.bytes, row)),
      extra: (db, t) => writeDictionary(db, t, all.dict),
    },
    {
      name: "attributes coded, dictionary for repeating keys",
      ddl: (t) => spansDdl(t, "TEXT", "BLOB"),
      columns: spanColumns,
      values: (row) => replaceAttributes(plain(row), attributeAt(some.bytes, row)),
      extra: (db, t) => writeDictionary(db, t, some.dict),
    },
    {
      name: "attributes coded, keys only (values inline)",
      ddl: (t) => spansDdl(t, "TEXT", "BLOB"),
      columns: spanColumns,
      values: (row) => replaceAttributes(plain(row), attributeAt(keysOnly.bytes, row)),
      extra: (db, t) => writeDictionary(db, t, keysOnly.dict),
    },
    {
      name: "attributes deflated (preset dictionary)",
      ddl: (t) => spansDdl(t, "TEXT", "BLOB"),
      columns: spanColumns,
      values: (row) => replaceAttributes(plain(row), deflated[index.get(row.id) as number]),
    },
    {
      name: "ids as blobs + attributes coded (repeating keys)",
      ddl: (t) => spansDdl(t, "BLOB", "BLOB"),
      columns: spanColumns,
      values: (row) => replaceAttributes(withIds(row), attributeAt(some.bytes, row)),
      extra: (db, t) => writeDictionary(db, t, some.dict),
    },
  ];
  console.log(
    `encoding µs per span: coded (every string) ${round(all.encodeUs, 2)}, coded (repeating keys: ${[...repeating].join(", ")}) ${round(some.encodeUs, 2)}, deflate ${round(deflateUs, 2)}`,
  );
  return { layouts, decode };
}

/**
 * Where hashed posting entries go: a blob per key and `chunkRows` rows (a row's place in it
 * fits 16 bits), its entries split by the top `partBits` bits of their hash into blobs of their
 * own, so a lookup reads one part.
 */
interface HashedForm {
  chunkRows: number;
  partBits: number;
}
/**
 * The forms measured: a blob per key and 1,024 rows (about a commit's spans, so a writer
 * appends one per commit); the same split in 16 by hash; a blob per posting bucket (8,192
 * rows, which a writer would gather once the bucket is full) split in 64.
 */
const HASHED_FORMS: { name: string; form: HashedForm }[] = [
  { name: "hashed blobs per 1,024 rows", form: { chunkRows: 1024, partBits: 0 } },
  { name: "hashed blobs per 1,024 rows and 16th of the hash space", form: { chunkRows: 1024, partBits: 4 } },
  {
    name: "hashed blobs per posting bucket (8,192 rows) and 64th of the hash space",
    form: { chunkRows: 8192, partBits: 6 },
  },
];
/** Bytes per entry of a hashed posting blob: the value's 32-bit hash, the row's place in its chunk. */
const HASHED_ENTRY_BYTES = 6;

/** FNV-1a, 32 bits, of a value's text as stored (UTF-8). */
function valueHash32(value: string): number {
  let hash = 0x811c9dc5;
  for (const byte of Buffer.from(value, "utf8")) hash = Math.imul(hash ^ byte, 0x01000193);
  return hash >>> 0;
}

const partOf = (hash: number, form: HashedForm) => (form.partBits === 0 ? 0 : hash >>> (32 - form.partBits));

/**
 * Keys whose values (almost) never repeat: each of their entries names about one row (ids,
 * request ids, timestamps as text). Their entries are most of the postings' bytes, and a
 * b-tree entry per span is the costly way to keep them.
 */
function uniqueValuedKeys(postings: Row[]): Set<bigint> {
  const perKey = new Map<bigint, { entries: number; rows: number }>();
  for (const row of postings) {
    const key = row.key_id as bigint;
    const count = perKey.get(key) ?? { entries: 0, rows: 0 };
    count.entries++;
    count.rows += decodePostingRows(row.rows as Buffer, Number(row.first_row)).length;
    perKey.set(key, count);
  }
  return new Set([...perKey].filter(([, c]) => c.entries >= 64 && c.rows < 1.2 * c.entries).map(([key]) => key));
}

interface HashedChunk {
  bucket: bigint;
  key: bigint;
  part: number;
  first: number;
  blob: Buffer;
}

/**
 * The entries of unique-valued keys as blobs (HashedForm): per row, the 32-bit hash of its
 * value and its place in the chunk, sorted, so a lookup is a binary search in each blob of its
 * window. A hash may collide: a reader checks each row found against its attributes, as the
 * spans' `obs_attribute_text` does.
 */
function hashedChunks(postings: Row[], keys: Set<bigint>, form: HashedForm): HashedChunk[] {
  const chunks = new Map<string, Omit<HashedChunk, "blob"> & { entries: [number, number][] }>();
  for (const row of postings) {
    const key = row.key_id as bigint;
    if (!keys.has(key)) continue;
    const hash = valueHash32(row.value as string);
    const part = partOf(hash, form);
    for (const id of decodePostingRows(row.rows as Buffer, Number(row.first_row))) {
      const first = id - (id % form.chunkRows);
      const name = `${key}/${part}/${first}`;
      let chunk = chunks.get(name);
      if (chunk === undefined) {
        chunk = { bucket: row.bucket as bigint, key, part, first, entries: [] };
        chunks.set(name, chunk);
      }
      chunk.entries.push([hash, id - first]);
    }
  }
  return [...chunks.values()].map(({ entries, ...chunk }) => {
    entries.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
    const blob = Buffer.alloc(entries.length * HASHED_ENTRY_BYTES);
    entries.forEach(([hash, place], i) => {
      blob.writeUInt32BE(hash, i * HASHED_ENTRY_BYTES);
      blob.writeUInt16BE(place, i * HASHED_ENTRY_BYTES + 4);
    });
    return { ...chunk, blob };
  });
}

/** The rows of a blob whose value hashes to `hash` (a binary search, then its neighbours). */
function rowsWithHash(first: number, blob: Buffer, hash: number): number[] {
  const count = blob.length / HASHED_ENTRY_BYTES;
  let low = 0;
  let high = count;
  while (low < high) {
    const mid = (low + high) >>> 1;
    if (blob.readUInt32BE(mid * HASHED_ENTRY_BYTES) < hash) low = mid + 1;
    else high = mid;
  }
  const rows: number[] = [];
  for (let i = low; i < count && blob.readUInt32BE(i * HASHED_ENTRY_BYTES) === hash; i++) {
    rows.push(first + blob.readUInt16BE(i * HASHED_ENTRY_BYTES + 4));
  }
  return rows;
}

/**
 * µs to find the rows of one value of a unique-valued key over the whole store: today's b-tree
 * seek per bucket (`tables.today`) against a binary search in each hashed blob read from the
 * two hashed layouts' tables, for the same sampled values, which must find the same rows.
 */
function hashedLookupCost(
  db: Database.Database,
  postings: Row[],
  keys: Set<bigint>,
  tables: { today: string; hashed: string[] },
): Record<string, number> {
  const samples = postings.filter((row) => keys.has(row.key_id as bigint)).filter((_, i) => i % 97 === 0);
  const buckets = db.prepare(`SELECT DISTINCT bucket FROM ${tables.today}`).pluck().all() as bigint[];
  const seek = db.prepare(`SELECT first_row, rows FROM ${tables.today} WHERE bucket = ? AND key_id = ? AND value = ?`);
  seek.raw();
  const blobsOf = (table: string) =>
    db
      .prepare(`SELECT first_row, entries FROM ${table} WHERE bucket BETWEEN ? AND ? AND key_id = ? AND part = ?`)
      .raw();
  const [low, high] = [buckets[0] ?? 0n, buckets[buckets.length - 1] ?? 0n];
  const byTree = (row: Row) => {
    const rows: number[] = [];
    for (const bucket of buckets) {
      for (const [first, ids] of seek.all(bucket, row.key_id, row.value) as [bigint, Buffer][]) {
        rows.push(...decodePostingRows(ids, Number(first)));
      }
    }
    return rows;
  };
  const byHash = (table: string, form: HashedForm) => {
    const statement = blobsOf(table);
    return (row: Row) => {
      const hash = valueHash32(row.value as string);
      const rows: number[] = [];
      for (const [first, blob] of statement.all(low, high, row.key_id, partOf(hash, form)) as [bigint, Buffer][]) {
        rows.push(...rowsWithHash(Number(first), blob, hash));
      }
      return rows;
    };
  };
  const finders = HASHED_FORMS.map(({ form }, i) => byHash(tables.hashed[i] as string, form));
  let missed = 0;
  for (const row of samples) {
    const expected = byTree(row);
    // A collision adds rows the attribute check would drop; a missing row is a bug.
    for (const find of finders) {
      const rows = find(row);
      if (!expected.every((id) => rows.includes(id))) missed++;
    }
  }
  const time = (find: (row: Row) => number[]) => {
    const started = performance.now();
    for (let pass = 0; pass < 5; pass++) for (const row of samples) find(row);
    return round(((performance.now() - started) * 1000) / (5 * samples.length), 1);
  };
  return {
    values: samples.length,
    "b-tree seeks, µs": time(byTree),
    ...Object.fromEntries(
      HASHED_FORMS.map(({ name }, i) => [`${name}, µs`, time(finders[i] as (row: Row) => number[])]),
    ),
    "rows missed": missed,
  };
}

/**
 * Postings as today (row ids as varint differences, schema 11) against the JSON text of
 * schema 10, with values as dictionary ids, or hashed, and with the entries of unique-valued
 * keys as hashed chunks.
 */
function postingLayouts(postings: Row[] = []): Layout[] {
  const unique = uniqueValuedKeys(postings);
  const dict = new AttributeDictionary();
  const idList = (row: Row) => decodePostingRows(row.rows as Buffer, Number(row.first_row));
  const ids = (row: Row) => encodePostingRows(idList(row));
  const table = (t: string, valueType: string, rowsType: string) =>
    `CREATE TABLE ${t} (bucket INTEGER NOT NULL, key_id INTEGER NOT NULL, value ${valueType} NOT NULL,
      first_row INTEGER NOT NULL, last_row INTEGER NOT NULL, rows ${rowsType} NOT NULL,
      PRIMARY KEY (bucket, key_id, value, first_row)) WITHOUT ROWID`;
  const columns = ["bucket", "key_id", "value", "first_row", "last_row", "rows"];
  return [
    {
      name: "as the writer writes them (copy): row ids as delta-coded blobs",
      ddl: (t) => table(t, "TEXT", "BLOB"),
      columns,
      values: (row) => [row.bucket, row.key_id, row.value, row.first_row, row.last_row, ids(row)],
    },
    {
      name: "row ids as JSON text (schema 10)",
      ddl: (t) => table(t, "TEXT", "TEXT"),
      columns,
      values: (row) => [row.bucket, row.key_id, row.value, row.first_row, row.last_row, JSON.stringify(idList(row))],
    },
    {
      name: "row ids as blobs, values as dictionary ids",
      ddl: (t) => table(t, "INTEGER", "BLOB"),
      columns,
      values: (row) => [
        row.bucket,
        row.key_id,
        dict.valueId(Number(row.key_id), row.value as string),
        row.first_row,
        row.last_row,
        ids(row),
      ],
      extra: (db, t) => writeDictionary(db, t, dict),
    },
    {
      // A reader would check each row found against its attributes (a hash may collide).
      name: "row ids as blobs, values past 8 bytes as an 8-byte hash",
      ddl: (t) => table(t, "", "BLOB"),
      columns,
      values: (row) => [
        row.bucket,
        row.key_id,
        hashedValue(row.value as string),
        row.first_row,
        row.last_row,
        ids(row),
      ],
    },
    ...HASHED_FORMS.map(({ name, form }) =>
      hashedLayout(`the entries of unique-valued keys (${unique.size}) as ${name}`, form),
    ),
  ];

  function hashedLayout(name: string, form: HashedForm): Layout {
    return {
      name,
      ddl: (t) => table(t, "TEXT", "BLOB"),
      columns,
      values: (row) =>
        unique.has(row.key_id as bigint)
          ? null
          : [row.bucket, row.key_id, row.value, row.first_row, row.last_row, ids(row)],
      extra: (db, t) => {
        db.exec(`CREATE TABLE ${t}_hashed (bucket INTEGER NOT NULL, key_id INTEGER NOT NULL, part INTEGER NOT NULL,
          first_row INTEGER NOT NULL, entries BLOB NOT NULL,
          PRIMARY KEY (bucket, key_id, part, first_row)) WITHOUT ROWID`);
        const insert = db.prepare(`INSERT INTO ${t}_hashed VALUES (?, ?, ?, ?, ?)`);
        db.transaction(() => {
          for (const chunk of hashedChunks(postings, unique, form)) {
            insert.run(chunk.bucket, chunk.key, chunk.part, chunk.first, chunk.blob);
          }
        })();
        return [`${t}_hashed`];
      },
    };
  }
}

function hashedValue(value: string): string | Buffer {
  return Buffer.byteLength(value) <= 8 ? value : createHash("sha1").update(value).digest().subarray(0, 8);
}

/**
 * The logs table as schema 17 kept it (ids as BLOB, the trace index on the last 8 bytes of the
 * trace id; times whole, a unique index by content and time and another by time), or with ids
 * as TEXT as before; or, `relativeTimes`, as schema 18 keeps it (v018-log-times.ts: times
 * relative, the usual severity text as none, the trace index on 4 bytes of the id, no trace id
 * in the index of warnings).
 */
function logsDdl(t: string, idType: string, attributesType: string, relativeTimes = false): string {
  const times = relativeTimes
    ? "time_ns INTEGER, observed_offset_ns INTEGER"
    : "time_ns INTEGER NOT NULL, observed_ns INTEGER NOT NULL";
  const byTime = relativeTimes
    ? `CREATE UNIQUE INDEX ${t}_by_ts ON ${t} (ts_ns, substr(hash, 1, 8));
  CREATE UNIQUE INDEX ${t}_timeless_by_hash ON ${t} (hash) WHERE time_ns = 0 AND observed_offset_ns IS NULL;`
    : `CREATE UNIQUE INDEX ${t}_by_content ON ${t} (CASE WHEN time_ns <> 0 THEN time_ns ELSE observed_ns END, hash);
  CREATE INDEX ${t}_by_ts ON ${t} (ts_ns);`;
  return `CREATE TABLE ${t} (id INTEGER PRIMARY KEY AUTOINCREMENT, hash BLOB NOT NULL, ts_ns INTEGER NOT NULL,
    ${times}, severity_number INTEGER NOT NULL, severity_text TEXT,
    body TEXT, attributes ${attributesType} NOT NULL, trace_id ${idType}, span_id ${idType}, flags INTEGER NOT NULL,
    event_name TEXT, dropped_attributes_count INTEGER NOT NULL, service_id INTEGER NOT NULL,
    resource_id INTEGER NOT NULL, scope_id INTEGER NOT NULL);
  ${byTime}
  CREATE INDEX ${t}_by_trace ON ${t} (id >> 12, ${idType === "BLOB" ? (relativeTimes ? "substr(trace_id, 13, 4)" : "substr(trace_id, 9, 8)") : "trace_id, span_id"})
    WHERE trace_id IS NOT NULL;
  CREATE INDEX ${t}_warnings_by_service ON ${t} (service_id, ts_ns${relativeTimes ? "" : ", trace_id"}) WHERE severity_number >= 13;`;
}

function logLayouts(rows: Row[], stored: Map<unknown, unknown>, values: StoredValues): Layout[] {
  const logColumns = Object.keys(rows[0] ?? {});
  const plain = (row: Row) => logColumns.map((c) => row[c]);
  const repeating = repeatingKeys(rows, 0.1);
  const dict = new AttributeDictionary();
  const coded = new Map(
    rows.map((row) => [row.id, encodeAttributes(row.attributes as string, dict, (k) => repeating.has(k))]),
  );
  const keysDict = new AttributeDictionary();
  const keysOnly = new Map(
    rows.map((row) => [row.id, encodeAttributes(row.attributes as string, keysDict, () => false)]),
  );
  // Schema 18's columns (stored-log-fields.ts): the record's own time NULL when it is ts_ns, its
  // observed time relative, its severity's usual text as none.
  const relativeColumns = logColumns.map((c) => (c === "observed_ns" ? "observed_offset_ns" : c));
  const relative = (row: Row, c: string, value: unknown) => {
    const ts = row.ts_ns as bigint;
    if (c === "time_ns") return row.time_ns === ts ? null : row.time_ns;
    if (c === "observed_ns") return row.observed_ns === 0n ? null : (row.observed_ns as bigint) - ts;
    if (c === "severity_text")
      return storedSeverityText(Number(row.severity_number), row.severity_text as string | null);
    return value;
  };
  const today = (row: Row, hashBytes: number) =>
    logColumns.map((c) => {
      if (c === "attributes") return stored.get(row.id);
      if (c === "trace_id" || c === "span_id") return blob(row[c]);
      if (c === "hash") return (row.hash as Buffer).subarray(0, hashBytes);
      return relative(row, c, row[c]);
    });
  const dense = (row: Row, hashBytes: number, source = coded) =>
    logColumns.map((c) => {
      if (c === "trace_id" || c === "span_id") return blob(row[c]);
      if (c === "attributes") return source.get(row.id);
      if (c === "hash") return (row.hash as Buffer).subarray(0, hashBytes);
      return row[c];
    });
  return [
    {
      name: "today (copy): times relative to ts_ns, one unique index by time and content (schema 18), tagged attributes (20)",
      ddl: (t) => logsDdl(t, "BLOB", "BLOB", true),
      columns: relativeColumns,
      values: (row) => today(row, 20),
      extra: (db, t) => writeValues(db, t, values),
    },
    {
      name: "schemas 16 and 17: times whole, unique by content, a second index by time",
      ddl: (t) => logsDdl(t, "BLOB", "BLOB"),
      columns: logColumns,
      values: (row) =>
        logColumns.map((c) =>
          c === "attributes"
            ? attributesBeforeV20(stored.get(row.id))
            : c === "trace_id" || c === "span_id"
              ? blob(row[c])
              : row[c],
        ),
      extra: (db, t) => writeValues(db, t, values),
    },
    {
      name: "schemas 14 and 15: the same with trace and span ids as hex text",
      ddl: (t) => logsDdl(t, "TEXT", "BLOB"),
      columns: logColumns,
      values: (row) => logColumns.map((c) => (c === "attributes" ? attributesBeforeV20(stored.get(row.id)) : row[c])),
      extra: (db, t) => writeValues(db, t, values),
    },
    {
      name: "today, with a content hash of 8 bytes",
      ddl: (t) => logsDdl(t, "BLOB", "BLOB", true),
      columns: relativeColumns,
      values: (row) => today(row, 8),
      extra: (db, t) => writeValues(db, t, values),
    },
    {
      name: "attributes as JSON text (schema 11)",
      ddl: (t) => logsDdl(t, "TEXT", "TEXT"),
      columns: logColumns,
      values: plain,
    },
    {
      name: "attributes coded, keys only (values inline)",
      ddl: (t) => logsDdl(t, "TEXT", "BLOB"),
      columns: logColumns,
      values: (row) => logColumns.map((c) => (c === "attributes" ? keysOnly.get(row.id) : row[c])),
      extra: (db, t) => writeDictionary(db, t, keysDict),
    },
    {
      name: "ids as blobs + attributes coded (repeating keys)",
      ddl: (t) => logsDdl(t, "BLOB", "BLOB"),
      columns: logColumns,
      values: (row) => dense(row, 20),
      extra: (db, t) => writeDictionary(db, t, dict),
    },
    {
      name: "the same + content hash of 8 bytes, not 20",
      ddl: (t) => logsDdl(t, "BLOB", "BLOB"),
      columns: logColumns,
      values: (row) => dense(row, 8),
      extra: (db, t) => writeDictionary(db, t, dict),
    },
  ];
}

function report(
  title: string,
  results: LayoutResult[],
  decode: Record<string, { us: number; mismatches: number }> = {},
) {
  const base = results[0]?.bytesPerRow ?? 0;
  console.log(title);
  console.table(
    Object.fromEntries(
      results.map((r) => [
        r.layout,
        {
          "bytes/row": r.bytesPerRow,
          saved: round(base - r.bytesPerRow, 1),
          "insert µs/row": r.writeUsPerRow,
          "decode µs/row": decode[r.layout]?.us ?? "",
          mismatches: decode[r.layout]?.mismatches ?? "",
        },
      ]),
    ),
  );
}

function main(): void {
  const dir = tempDir("obs-bench-density-");
  try {
    const spansPath = join(dir.path, "spans.sqlite");
    const filled = fillSpans(spansPath, true);
    const spansDb = new Database(spansPath, { readonly: true });
    spansDb.defaultSafeIntegers(true);
    const today = objectBytes(spansDb);
    console.log(
      `today: ${filled.spans} spans written at ${Math.round(filled.spans / filled.seconds)} spans/s; file ${round(filled.fileBytes / filled.spans, 1)} bytes per span after a checkpoint`,
    );
    console.table(
      Object.fromEntries(
        [...today]
          .filter(([, bytes]) => bytes / filled.spans >= 1)
          .sort((a, b) => b[1] - a[1])
          .map(([name, bytes]) => [name, { "bytes/span": round(bytes / filled.spans, 1) }]),
      ),
    );
    const { rows: spanRows, stored: spanAttributes, values: spanValues } = rowsWithJson(spansDb, "spans");
    spansDb.close();
    // The alternatives to the postings start from them as the writer writes them, unpacked.
    const unpackedPath = join(dir.path, "spans-unpacked.sqlite");
    fillSpans(unpackedPath, false);
    const unpackedDb = new Database(unpackedPath, { readonly: true });
    unpackedDb.defaultSafeIntegers(true);
    const postingRows = unpackedDb.prepare("SELECT * FROM span_postings").all() as Row[];
    unpackedDb.close();

    const alt = freshStore(join(dir.path, "alternatives.sqlite"));
    const { layouts, decode } = spanLayouts(spanRows, spanAttributes, spanValues);
    report(
      `spans table and its indexes (${spanRows.length} rows), bytes per span`,
      layouts.map((layout, i) => measureLayout(alt, layout, `s${i}`, spanRows)),
      decode,
    );
    const spanPostingLayouts = postingLayouts(postingRows);
    const postings = spanPostingLayouts.map((layout, i) => measureLayout(alt, layout, `p${i}`, postingRows));
    report(
      `span postings (${postingRows.length} entries), bytes per span`,
      postings.map((p) => ({ ...p, bytesPerRow: round((p.bytesPerRow * postingRows.length) / spanRows.length, 1) })),
    );
    // The hashed layouts are the last ones.
    const firstHashed = spanPostingLayouts.length - HASHED_FORMS.length;
    console.log("finding the spans of one value of a unique-valued key over the whole store:");
    console.table({
      "span postings": hashedLookupCost(alt, postingRows, uniqueValuedKeys(postingRows), {
        today: "p0",
        hashed: HASHED_FORMS.map((_, i) => `p${firstHashed + i}_hashed`),
      }),
    });
    alt.close();

    const logsPath = join(dir.path, "logs.sqlite");
    const logsNowNs = BigInt(Date.now()) * 1_000_000n;
    buildQueryDataset(logsPath, 100, LOGS, logsNowNs);
    const logsDb = new Database(logsPath, { readonly: true });
    logsDb.defaultSafeIntegers(true);
    const logObjects = objectBytes(logsDb);
    const logCount = Number(logsDb.prepare("SELECT count(*) FROM logs").pluck().get());
    const logNames = logsDb
      .prepare(
        "SELECT name FROM sqlite_schema WHERE tbl_name IN ('logs', 'log_postings', 'log_hashed_postings', 'log_rollups')",
      )
      .pluck()
      .all() as string[];
    console.log(
      `today: ${logCount} log records; the log tables and indexes take ${round(logNames.reduce((s, n) => s + (logObjects.get(n) ?? 0), 0) / logCount, 1)} bytes per record`,
    );
    console.table(
      Object.fromEntries(
        logNames
          .map((name) => [name, logObjects.get(name) ?? 0] as const)
          .sort((a, b) => b[1] - a[1])
          .map(([name, bytes]) => [name, { "bytes/log": round(bytes / logCount, 1) }]),
      ),
    );
    const { rows: logRows, stored: logAttributes, values: logValues } = rowsWithJson(logsDb, "logs");
    logsDb.close();
    const unpackedLogsPath = join(dir.path, "logs-unpacked.sqlite");
    buildQueryDataset(unpackedLogsPath, 100, LOGS, logsNowNs, () => {}, { packPostings: false });
    const unpackedLogsDb = new Database(unpackedLogsPath, { readonly: true });
    unpackedLogsDb.defaultSafeIntegers(true);
    const logPostingRows = unpackedLogsDb.prepare("SELECT * FROM log_postings").all() as Row[];
    unpackedLogsDb.close();
    const logAlt = freshStore(join(dir.path, "log-alternatives.sqlite"));
    report(
      `logs table and its indexes (${logRows.length} rows), bytes per record`,
      logLayouts(logRows, logAttributes, logValues).map((layout, i) => measureLayout(logAlt, layout, `l${i}`, logRows)),
    );
    const logPostings = postingLayouts(logPostingRows).map((layout, i) =>
      measureLayout(logAlt, layout, `lp${i}`, logPostingRows),
    );
    report(
      `log postings (${logPostingRows.length} entries), bytes per record`,
      logPostings.map((p) => ({
        ...p,
        bytesPerRow: round((p.bytesPerRow * logPostingRows.length) / logRows.length, 1),
      })),
    );
    logAlt.close();
  } finally {
    dir.cleanup();
    rmSync(dir.path, { recursive: true, force: true });
  }
}

main();

import { join } from "node:path";
import Database from "better-sqlite3";
import { decodeLogRequest, decodeTraceRequest } from "../../daemon/otlp/decode-request.js";
import { AttributeKeys } from "../../daemon/query/attribute-keys.js";
import { codeAttributes } from "../../daemon/store/attribute-coding.js";
import { openWriteConnection } from "../../daemon/store/connection.js";
import { encodeSlowest, type SlowSpan } from "../../daemon/store/operation-rollup.js";
import { decodePostingRows } from "../../daemon/store/posting-rows.js";
import { MIGRATIONS, migrate } from "../../daemon/store/schema.js";
import { idHex, optionalIdHex } from "../../daemon/store/stored-ids.js";
import {
  logObservedSql,
  logSeverityTextSql,
  logTimeSql,
  storedSeverityText,
} from "../../daemon/store/stored-log-fields.js";
import { storedDetails } from "../../daemon/store/stored-span-fields.js";
import { TelemetryWriter } from "../../daemon/store/telemetry-writer.js";
import { encodeBuckets } from "../../shared/duration-histogram.js";
import { attributesBeforeV20, histogramBeforeV21, slowestBeforeV21 } from "./older-stored-forms.js";
import { tempDir } from "./temp-dir.js";

export interface TestStore {
  db: Database.Database;
  path: string;
  writer: TelemetryWriter;
  writeTraces(request: unknown, receivedNs?: bigint): number;
  writeLogs(request: unknown, receivedNs?: bigint): number;
  counters(): Record<string, bigint>;
  close(): void;
}

/**
 * A real store in a temporary file, written through the same writer the worker uses.
 * `maxDbBytes` is the size cap the connection is tuned for (0: none); `collectorStartNs` when
 * the collector started (0: before every point, so a series' first point with a start time
 * counts whole).
 */
export function testStore(maxDbBytes = 0, collectorStartNs = 0n): TestStore {
  const dir = tempDir();
  const path = join(dir.path, "t.sqlite");
  const { db } = openWriteConnection(path, maxDbBytes);
  const writer = new TelemetryWriter(db, collectorStartNs, maxDbBytes);
  return {
    db,
    path,
    writer,
    writeTraces(request: unknown, receivedNs = 0n): number {
      const batch = decodeTraceRequest(Buffer.from(JSON.stringify(request)), "json");
      return writer.transaction(() => writer.writeSpans(batch, receivedNs));
    },
    writeLogs(request: unknown, receivedNs = 0n): number {
      const batch = decodeLogRequest(Buffer.from(JSON.stringify(request)), "json");
      return writer.transaction(() => writer.writeLogs(batch, receivedNs));
    },
    counters(): Record<string, bigint> {
      return Object.fromEntries(
        (db.prepare("SELECT name, value FROM counters").raw().all() as [string, bigint][]).map(([k, v]) => [k, v]),
      );
    },
    close() {
      (db as Database.Database).close();
      dir.cleanup();
    },
  };
}

/** The columns that held ids as hex text before version 16, and their bytes since (stored-ids.ts). */
const ID_COLUMNS = new Map<string, readonly string[]>([
  ["spans", ["span_id", "parent_span_id"]],
  ["traces", ["trace_id", "root_span_id"]],
  ["logs", ["trace_id", "span_id"]],
  ["orphan_spans", ["trace_id", "span_id", "parent_span_id"]],
]);

/**
 * SQL reading a current store's `column` of `table` as versions before 18 stored it: a log
 * record's own time and observed time whole, not relative to `ts_ns`, and its severity text
 * as it was sent (v018-log-times.ts).
 */
export function columnBeforeV18(table: string, column: string): string {
  if (table !== "logs") return columnBeforeV19(table, column);
  if (column === "time_ns") return logTimeSql("logs");
  if (column === "observed_ns") return `(${logObservedSql("logs")})`;
  if (column === "severity_text") return `(${logSeverityTextSql("logs")})`;
  return column;
}

/**
 * SQL reading a current store's `column` of `table` as versions before 19 stored it: a span's
 * name and a trace's root name as text, a span's end time whole (v019-span-names.ts: since, a
 * name by its id in span_names, or as itself past that table's bound).
 * `span_names` is named alone: read from a store copied at an older version (which has no such
 * table), it is found in the attached source.
 */
export function columnBeforeV19(table: string, column: string): string {
  if (table === "spans" && column === "name") return "coalesce((SELECT name FROM span_names WHERE id = name_id), name)";
  if (table === "spans" && column === "end_ns") return "(start_ns + duration_ns)";
  if (table === "traces" && column === "root_name")
    return "coalesce((SELECT name FROM span_names WHERE id = root_name_id), root_name)";
  return columnBeforeV22(table, column);
}

/**
 * SQL reading a current store's `column` of `table` as versions before 22 stored it: a span's
 * trace state, events, links and dropped counts each in a column of its own, not in `details`
 * (v022-lean-spans.ts).
 */
export function columnBeforeV22(table: string, column: string): string {
  const field = table === "spans" ? DETAILS_BEFORE_V22.get(column) : undefined;
  if (field === undefined) return columnBeforeV23(table, column);
  const value = `json_extract(details, '$.${field}')`;
  return column.startsWith("dropped_") ? `coalesce(${value}, 0)` : value;
}

/**
 * SQL reading a current store's `column` of `table` as versions before 23 stored it: a metric
 * series' newest time in its own row (v023-series-last-times.ts).
 */
export function columnBeforeV23(table: string, column: string): string {
  return table === "metric_series" && column === "last_ns"
    ? "(SELECT l.last_ns FROM metric_series_last l WHERE l.series_id = id)"
    : column;
}

/** The columns of a span before version 22 that `details` holds since, by their field there. */
const DETAILS_BEFORE_V22 = new Map([
  ["trace_state", "traceState"],
  ["events", "events"],
  ["links", "links"],
  ["dropped_attributes_count", "droppedAttributesCount"],
  ["dropped_events_count", "droppedEventsCount"],
  ["dropped_links_count", "droppedLinksCount"],
]);

/** SQL reading a current store's `column` of `table` as versions before 16 stored it: ids as hex text. */
export function columnBeforeV16(table: string, column: string): string {
  return ID_COLUMNS.get(table)?.includes(column) ? optionalIdHex(column) : columnBeforeV18(table, column);
}

/**
 * SQL reading a current store's `column` of `table` as versions before 12 stored it: spans
 * and log records kept their attributes as JSON text (`attributesJson` names the function that
 * rebuilds it), and spans their trace's id and their duration; ids were hex text
 * (columnBeforeV16). Other columns as they are.
 */
export function columnBeforeV12(
  table: string,
  column: string,
  from: { schema: "" | "src."; attributesJson: string },
): string {
  if ((table === "spans" || table === "logs") && column === "attributes") return `${from.attributesJson}(attributes)`;
  if (table === "spans" && column === "trace_id")
    return `(SELECT ${idHex("t.trace_id")} FROM ${from.schema}traces t WHERE t.trace_key = ${from.schema}spans.trace_key)`;
  if (table === "spans" && column === "duration_ns") return "max(duration_ns, 0)";
  return columnBeforeV16(table, column);
}

/**
 * A copy of `source`'s data in a new file at an older schema `version`, as an obs of that
 * version would have stored it: before version 5, trace_services named traces by trace id;
 * before 11, postings listed row ids as JSON text; before 12, attributes were JSON text;
 * before 14, they kept every value in the row; before 16, ids were hex text; before 18, log
 * records kept their times whole. Postings hashed
 * since version 17 cannot be turned back into entries (a hash is not its value): a source
 * that has any is refused for an older version.
 */
export function copyAtVersion(source: Database.Database, path: string, version: number): Database.Database {
  if (version < 17) {
    for (const table of ["span_hashed_postings", "log_hashed_postings", "span_pending_hashes", "log_pending_hashes"]) {
      const hashed = source.prepare(`SELECT count(*) FROM ${table}`).pluck().safeIntegers(false).get() as number;
      if (hashed > 0) throw new Error(`copyAtVersion: ${table} holds postings version ${version} cannot keep`);
    }
  }
  const db = new Database(path);
  db.defaultSafeIntegers(true);
  migrate(db, path, MIGRATIONS.slice(0, version));
  db.prepare("ATTACH DATABASE ? AS src").run(source.name);
  const keys = new AttributeKeys(source);
  db.function("obs_old_attributes", (stored: unknown) => (stored instanceof Uint8Array ? keys.json(stored) : stored));
  // Versions 12 and 13 coded keys alone: values in the value dictionary go back into the rows.
  const keyIds = new Map(
    (source.prepare("SELECT key, id FROM attr_keys").raw().safeIntegers(false).all() as [string, number][]).map(
      ([key, id]) => [JSON.stringify(key), id],
    ),
  );
  db.function("obs_keys_only_attributes", (stored: unknown) =>
    stored instanceof Uint8Array
      ? attributesBeforeV20(codeAttributes(keys.json(stored), (keyJson) => keyIds.get(keyJson) ?? -1))
      : stored,
  );
  db.function("obs_attributes_before_v20", attributesBeforeV20);
  db.function("obs_histogram_before_v21", histogramBeforeV21);
  db.function("obs_slowest_before_v21", slowestBeforeV21);
  const tables = db
    .prepare("SELECT name FROM main.sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'")
    .pluck()
    .all() as string[];
  db.transaction(() => {
    for (const table of tables) {
      if (table === "trace_services" && version < 5) {
        db.exec(`INSERT INTO main.trace_services (trace_id, service_id)
          SELECT ${idHex("t.trace_id")}, ts.service_id FROM src.trace_services ts JOIN src.traces t ON t.trace_key = ts.trace_key`);
        continue;
      }
      if ((table === "span_postings" || table === "log_postings") && version < 11) {
        // Before version 11 an entry listed its row ids as JSON text.
        const insert = db.prepare(`INSERT INTO main.${table} VALUES (?, ?, ?, ?, ?, ?)`);
        db.exec(`DELETE FROM main.${table}`);
        const entries = db.prepare(`SELECT * FROM src.${table}`).raw().all() as [
          bigint,
          bigint,
          string,
          bigint,
          bigint,
          Buffer,
        ][];
        for (const [bucket, keyId, value, first, last, rows] of entries) {
          insert.run(bucket, keyId, value, first, last, JSON.stringify(decodePostingRows(rows, Number(first))));
        }
        continue;
      }
      const names = db.prepare(`SELECT name FROM pragma_table_info('${table}')`).pluck().all() as string[];
      const selected = names
        .map((name) =>
          version < 21 && table === "span_rollups" && (name === "histogram" || name === "slowest")
            ? `obs_${name}_before_v21(${name})`
            : version < 12
              ? columnBeforeV12(table, name, { schema: "src.", attributesJson: "obs_old_attributes" })
              : version < 14 && (table === "spans" || table === "logs") && name === "attributes"
                ? "obs_keys_only_attributes(attributes)"
                : version < 16
                  ? columnBeforeV16(table, name)
                  : version < 18
                    ? columnBeforeV18(table, name)
                    : version < 19
                      ? columnBeforeV19(table, name)
                      : version < 22
                        ? columnBeforeV22(table, name)
                        : version < 23
                          ? columnBeforeV23(table, name)
                          : name,
        )
        .map((sql, i) =>
          version >= 14 && version < 20 && (table === "spans" || table === "logs") && names[i] === "attributes"
            ? `obs_attributes_before_v20(${sql})`
            : sql,
        );
      db.exec(
        `DELETE FROM main.${table}; INSERT INTO main.${table} (${names.join(", ")}) SELECT ${selected.join(", ")} FROM src.${table}`,
      );
    }
    // Only the counters and sequences that version had: metric counters came with version 8,
    // and a sequence belongs to a table that version declared AUTOINCREMENT.
    if (version < 8) db.exec("DELETE FROM main.counters WHERE name IN ('points', 'series')");
    db.exec(`DELETE FROM main.sqlite_sequence;
      INSERT INTO main.sqlite_sequence SELECT q.name, q.seq FROM src.sqlite_sequence q
        JOIN main.sqlite_schema t ON t.type = 'table' AND t.name = q.name AND t.sql LIKE '%AUTOINCREMENT%'`);
  })();
  db.exec("DETACH DATABASE src");
  return db;
}

/**
 * `read` over a copy of a store older than version 16 with its ids turned to bytes, the
 * (empty) tables of hashed postings and pending hashes added, its log records' observed times
 * and severity texts as version 18 keeps them and its span names and durations as version 19
 * does, as this build's reader reads them, and nothing else changed: what the older store's
 * rows answer.
 */
export function readWithIdsAsBytes<T>(db: Database.Database, read: (copy: Database.Database) => T): T {
  const path = `${db.name}.ids-as-bytes`;
  db.prepare("VACUUM INTO ?").run(path);
  const copy = new Database(path);
  try {
    copy.defaultSafeIntegers(true);
    for (const table of ["spans", "traces", "logs", "orphan_spans", "trace_services"]) {
      const columns = copy.prepare("SELECT name FROM pragma_table_info(?)").pluck().all(table) as string[];
      for (const column of columns) {
        if (/^(trace_id|span_id|parent_span_id|root_span_id)$/.test(column)) {
          copy.exec(`UPDATE ${table} SET ${column} = unhex(${column})`);
        }
      }
    }
    // Before version 18 a log record kept its observed time whole (its time, whole or 0, reads
    // the same) and its severity text as sent.
    if (
      (copy.prepare("SELECT name FROM pragma_table_info('logs')").pluck().all() as string[]).includes("observed_ns")
    ) {
      copy.exec(`ALTER TABLE logs ADD COLUMN observed_offset_ns INTEGER;
        UPDATE logs SET observed_offset_ns = CASE WHEN observed_ns = 0 THEN NULL ELSE observed_ns - ts_ns END`);
      copy.function("obs_stored_severity_text", (number: unknown, text: unknown) =>
        storedSeverityText(Number(number), (text as string | null) || null),
      );
      copy.exec("UPDATE logs SET severity_text = obs_stored_severity_text(severity_number, severity_text)");
    }
    // Before version 19 spans and traces kept names as text, spans their end (and before 12 a
    // duration of at least 0).
    const spanColumns = copy.prepare("SELECT name FROM pragma_table_info('spans')").pluck().all() as string[];
    if (spanColumns.includes("name")) {
      // Every name kept in its row, as version 19 keeps a name past the table's bound.
      copy.exec(`CREATE TABLE span_names (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE);
        ALTER TABLE spans ADD COLUMN name_id INTEGER;
        ALTER TABLE traces ADD COLUMN root_name_id INTEGER;
        ${spanColumns.includes("duration_ns") ? "" : "ALTER TABLE spans ADD COLUMN duration_ns INTEGER;"}
        UPDATE spans SET duration_ns = end_ns - start_ns;`);
    }
    // Before version 22 a span kept its rarely set fields in columns of their own.
    if (!spanColumns.includes("details")) {
      copy.function(
        "obs_details",
        (
          traceState: unknown,
          events: unknown,
          links: unknown,
          attributes: unknown,
          spanEvents: unknown,
          spanLinks: unknown,
        ) =>
          storedDetails({
            traceState: traceState as string | null,
            events: events as string | null,
            links: links as string | null,
            droppedAttributesCount: Number(attributes),
            droppedEventsCount: Number(spanEvents),
            droppedLinksCount: Number(spanLinks),
          }),
      );
      copy.exec(`ALTER TABLE spans ADD COLUMN details TEXT;
        UPDATE spans SET details = obs_details(trace_state, events, links, dropped_attributes_count,
          dropped_events_count, dropped_links_count)`);
    }
    // Before version 23 a metric series kept its newest time in its own row.
    if (
      (copy.prepare("SELECT name FROM pragma_table_info('metric_series')").pluck().all() as string[]).includes(
        "last_ns",
      )
    ) {
      copy.exec(`CREATE TABLE metric_series_last (series_id INTEGER PRIMARY KEY, last_ns INTEGER NOT NULL);
        INSERT INTO metric_series_last SELECT id, last_ns FROM metric_series`);
    }
    // Before version 21 a span rollup kept its histogram as 32-bit pairs and its slowest spans as JSON.
    copy.function("obs_histogram_v21", (stored: unknown) => {
      const buckets = new Map<number, number>();
      const bytes = stored as Buffer;
      for (let at = 0; at + 8 <= bytes.length; at += 8) buckets.set(bytes.readUInt32LE(at), bytes.readUInt32LE(at + 4));
      return encodeBuckets(buckets);
    });
    copy.function("obs_slowest_v21", (stored: unknown) => encodeSlowest(JSON.parse(stored as string) as SlowSpan[]));
    copy.exec(`UPDATE span_rollups SET histogram = obs_histogram_v21(histogram), slowest = obs_slowest_v21(slowest)
      WHERE typeof(slowest) = 'text'`);
    for (const signal of ["span", "log"]) {
      for (const [table, key] of [
        ["hashed_postings", "first_hash"],
        ["pending_hashes", "first_row"],
      ]) {
        copy.exec(`CREATE TABLE IF NOT EXISTS ${signal}_${table} (bucket INTEGER NOT NULL, key_id INTEGER NOT NULL,
          ${key} INTEGER NOT NULL, entries BLOB NOT NULL, PRIMARY KEY (bucket, key_id, ${key})) WITHOUT ROWID`);
      }
    }
    return read(copy);
  } finally {
    copy.close();
  }
}

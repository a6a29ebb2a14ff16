import type Database from "better-sqlite3";
import type { LogRecord, ServiceRecord, SpanRecord, TraceSummary } from "../../shared/api-records.js";
import type { MetricDetailRecord, MetricSummaryRecord } from "../../shared/query-types.js";
import { msToNsAtLeast } from "../../shared/time.js";
import type { AuditFacts, AuditWindow } from "../audit/audit-model.js";
import { everHashedMetaKey, registerHashedPostingFunctions, valueHash } from "../store/hashed-postings.js";
import { registerPostingFunctions } from "../store/posting-rows.js";
import { POSTING_BUCKET_ROWS } from "../store/postings.js";
import { LOG_TRACE_BUCKET_SHIFT, SPAN_ID_BUCKET_SHIFT } from "../store/schema.js";
import { idHex, idText } from "../store/stored-ids.js";
import { logObservedSql, logSeverityTextSql, logTimeSql } from "../store/stored-log-fields.js";
import { spanKeySql, spanOfTraceSql } from "../store/stored-span-fields.js";
import { type AttributeKeys, attributeKeysOf } from "./attribute-keys.js";
import {
  type LogRow,
  type SpanRow,
  type TraceRow,
  toLogRecord,
  toSpanRecord,
  toTraceSummary,
} from "./record-mapping.js";
import { ServiceActivity } from "./service-activity.js";
import { SPAN_DURATION, SPAN_END, TRACE_DURATION } from "./span-sql.js";
import {
  attributeText,
  LOG_JOINS,
  LOG_SEVERITY,
  likeAny,
  registerAttributeFunctions,
  SEVERITY_NAME,
  Where,
} from "./sql-parts.js";
import { readAuditFacts } from "./sqlite-audit-facts.js";
import { type FacetWindow, SqliteFacets } from "./sqlite-facets.js";
import { SqliteMetrics } from "./sqlite-metrics.js";
import { StatementCache } from "./statement-cache.js";
import type {
  FacetField,
  FacetValue,
  LogFilter,
  LogGroupBy,
  LogQuery,
  MetricBucketQuery,
  MetricGroupValues,
  MetricIdentity,
  MetricListQuery,
  MetricScope,
  PageRequest,
  PageResult,
  SpanQuery,
  StatsRow,
  TelemetryReader,
  TraceAgg,
  TraceDetail,
  TraceFilter,
  TraceGroupBy,
  TraceQuery,
  TraceSpanPage,
} from "./telemetry-reader.js";
import { MAX_TRACE_SPANS } from "./telemetry-reader.js";
import {
  addTrace,
  finishTraceGroups,
  type GroupFigures,
  newTraceGroups,
  type TraceGroups,
  traceGroupRows,
} from "./trace-groups.js";
import { capOptionalText } from "./value-cap.js";

/**
 * A span row's columns but its trace's id: since schema 12 a span names its trace by key
 * alone, and each query adds the id from `traces` for the rows it returns only (a join before a
 * sort and LIMIT would look it up for every row the sort reads). Its name is `span_names`'
 * or, past that table's bound, its own (schema 19, store/span-names.ts).
 */
const SPAN_COLUMNS = `s.id, s.trace_key, s.span_id, s.parent_span_id, v.name AS service, coalesce(sn.name, s.name) AS name, s.kind, s.start_ns,
  ${SPAN_END} AS end_ns, ${SPAN_DURATION} AS duration_ns, s.status_code, s.status_message, s.flags, s.attributes, s.details,
  r.attributes AS resource_attributes, r.schema_url AS resource_schema_url, r.dropped_attributes_count AS resource_dropped,
  sc.name AS scope_name, sc.version AS scope_version, sc.attributes AS scope_attributes,
  sc.schema_url AS scope_schema_url, sc.dropped_attributes_count AS scope_dropped`;
const SPAN_JOINS = `JOIN services v ON v.id = s.service_id JOIN resources r ON r.id = s.resource_id
  JOIN scopes sc ON sc.id = s.scope_id LEFT JOIN span_names sn ON sn.id = s.name_id`;
const LOG_COLUMNS = `l.id, l.hash, l.ts_ns, ${logTimeSql("l")} AS time_ns, ${logObservedSql("l")} AS observed_ns,
  l.severity_number, ${logSeverityTextSql("l")} AS severity_text, l.body, l.attributes,
  l.trace_id, l.span_id, l.flags, l.event_name, l.dropped_attributes_count, v.name AS service,
  r.attributes AS resource_attributes, r.schema_url AS resource_schema_url, r.dropped_attributes_count AS resource_dropped,
  sc.name AS scope_name, sc.version AS scope_version, sc.attributes AS scope_attributes,
  sc.schema_url AS scope_schema_url, sc.dropped_attributes_count AS scope_dropped`;
/** Whole log records also carry their resource; counts and facets do not need that join. */
const LOG_RECORD_JOINS = `${LOG_JOINS} JOIN resources r ON r.id = l.resource_id`;
const TRACE_COLUMNS = `t.trace_id, t.start_ns, t.end_ns, t.span_count, t.error_count, t.root_span_id,
  coalesce(rn.name, t.root_name) AS root_name,
  rv.name AS root_service,
  (SELECT json_group_array(sv.name) FROM trace_services ts JOIN services sv ON sv.id = ts.service_id
    WHERE ts.trace_key = t.trace_key) AS services`;
const TRACE_JOINS = `LEFT JOIN services rv ON rv.id = t.root_service_id LEFT JOIN span_names rn ON rn.id = t.root_name_id`;

/** Queries over the store's read connection. Never writes. */
export class SqliteReader implements TelemetryReader {
  private readonly statements: StatementCache;
  private readonly facetReader: SqliteFacets;
  private readonly activity: ServiceActivity;
  private readonly metricReader: SqliteMetrics;

  /**
   * Span and log rows as records, their coded attributes turned into JSON text here, for the
   * rows returned only: in the SQL, every row a sort reads before its LIMIT would pay for it.
   */
  private readonly spanRecord = (row: SpanRow): SpanRecord => toSpanRecord(this.withAttributeText(row));
  private readonly logRecord = (row: LogRow): LogRecord => toLogRecord(this.withAttributeText(row));
  private readonly attributeKeys: AttributeKeys;

  constructor(private readonly db: Database.Database) {
    this.attributeKeys = attributeKeysOf(db);
    this.statements = new StatementCache(db);
    this.facetReader = new SqliteFacets(db);
    this.activity = new ServiceActivity(db);
    this.metricReader = new SqliteMetrics(db);
    registerAttributeFunctions(db);
    registerPostingFunctions(db);
    registerHashedPostingFunctions(db);
    // The typings assume a single argument per step; this aggregate takes three.
    const options = {
      start: newTraceGroups,
      // A key that is a number is a span name's id (the operation's, traceStats names it).
      step: (groups: TraceGroups, key: unknown, durationNs: unknown, errors: unknown) =>
        addTrace(
          groups,
          key === null ? null : typeof key === "string" ? key : Number(key),
          Number(durationNs),
          Number(errors),
        ),
      result: (groups: TraceGroups) => JSON.stringify(finishTraceGroups(groups)),
    };
    db.aggregate("obs_trace_groups", options as unknown as Parameters<Database.Database["aggregate"]>[1]);
  }

  private withAttributeText<T extends { attributes: string }>(row: T): T {
    const stored: unknown = row.attributes;
    if (stored instanceof Uint8Array) row.attributes = this.attributeKeys.json(stored);
    return row;
  }

  auditFacts(window: AuditWindow): AuditFacts {
    return readAuditFacts(this.db, window);
  }

  metrics(query: MetricListQuery): PageResult<MetricSummaryRecord> {
    return this.metricReader.metrics(query);
  }

  metricIdentities(name: string, service?: string): MetricIdentity[] {
    return this.metricReader.metricIdentities(name, service);
  }

  describeMetric(scope: MetricScope, maxKeys: number, maxValues: number): MetricDetailRecord | null {
    return this.metricReader.describeMetric(scope, maxKeys, maxValues);
  }

  metricInterval(scope: MetricScope): number | null {
    return this.metricReader.metricInterval(scope);
  }

  metricBuckets(query: MetricBucketQuery): MetricGroupValues[] {
    return this.metricReader.metricBuckets(query);
  }

  private prepare(sql: string): Database.Statement {
    return this.statements.get(sql);
  }

  /**
   * A condition matching span name `name` in the columns that name it by id (span_names,
   * schema 19) or keep it whole (store/span-names.ts), and its parameters. A name is kept one
   * way only, so one column is compared: its id when the table holds it, else the text. The
   * id is looked up by the query itself, once (an uncorrelated subquery), so that a name the
   * writer adds meanwhile is seen the same way by both.
   */
  private nameIs(idColumn: string, textColumn: string, name: string): [string, ...unknown[]] {
    const id = "(SELECT id FROM span_names WHERE name = ?)";
    return [`CASE WHEN ${id} IS NULL THEN ${textColumn} = ? ELSE ${idColumn} = ${id} END`, name, name, name];
  }

  /** The names of span name ids (span_names, schema 19). */
  private spanNames(ids: number[]): Map<number, string> {
    const rows = this.prepare("SELECT id, name FROM span_names WHERE id IN (SELECT value FROM json_each(?))")
      .raw()
      .all(JSON.stringify(ids)) as [bigint, string][];
    return new Map(rows.map(([id, name]) => [Number(id), name]));
  }

  private serviceId(name: string): number | null {
    const id = this.prepare("SELECT id FROM services WHERE name = ?").pluck().get(name) as bigint | undefined;
    return id === undefined ? null : Number(id);
  }

  /**
   * A condition matching rows whose attribute `key` is exactly `value`, answered from the
   * postings index: one seek per row bucket in each of its forms, the entries of the value, the
   * hashed blobs of keys whose values do not repeat (store/hashed-postings.ts) and the blobs
   * the writer wrote hashed since their bucket was packed. A hash names a value only probably,
   * so each row found by its hash is checked against its own attribute. Null when the key was
   * never seen (no match).
   */
  private postingsCondition(signal: "spans" | "logs", rowColumn: string, key: string, value: string) {
    const keyId = this.prepare("SELECT id FROM attr_keys WHERE key = ?").pluck().get(key) as bigint | undefined;
    if (keyId === undefined) return null;
    // The buckets from the oldest stored row's to the newest's: those below hold no live row.
    const [firstRow, lastRow] = this.prepare(
      `SELECT coalesce((SELECT min(id) FROM ${signal}), 0), coalesce((SELECT seq FROM sqlite_sequence WHERE name = ?), 0)`,
    )
      .raw()
      .get(signal) as [bigint, bigint];
    const first = Math.floor(Number(firstRow) / POSTING_BUCKET_ROWS);
    const buckets = JSON.stringify(
      Array.from({ length: Math.floor(Number(lastRow) / POSTING_BUCKET_ROWS) - first + 1 }, (_, i) => first + i),
    );
    const prefix = signal === "spans" ? "span" : "log";
    const hash = valueHash(value);
    // Most keys were never hashed (meta lists those that were): for them the hashed forms are
    // not read at all. The list is read by this same statement: the packer may hash the key for
    // the first time between two statements, and a list read before would miss its rows.
    const everHashed = `EXISTS (SELECT 1 FROM meta m, json_each(m.value) k WHERE m.key = ? AND k.value = ?)`;
    const ever = everHashedMetaKey(`${prefix}_postings`);
    return {
      sql: `${rowColumn} IN (
        SELECT j.value FROM ${prefix}_postings p, json_each(obs_posting_rows(p.rows, p.first_row)) j
          WHERE p.bucket IN (SELECT value FROM json_each(?)) AND p.key_id = ? AND p.value = ?
        UNION ALL
        SELECT r.id FROM json_each(?) b,
          json_each(obs_hashed_rows((SELECT h.entries FROM ${prefix}_hashed_postings h
            WHERE h.bucket = b.value AND h.key_id = ? AND h.first_hash <= ? ORDER BY h.first_hash DESC LIMIT 1),
            b.value, ?)) c
          JOIN ${signal} r ON r.id = c.value
          WHERE ${everHashed} AND ${attributeText("r.attributes")} = ?
        UNION ALL
        SELECT r.id FROM ${prefix}_pending_hashes h, json_each(obs_hashed_rows(h.entries, h.bucket, ?)) c
          JOIN ${signal} r ON r.id = c.value
          WHERE ${everHashed} AND h.bucket IN (SELECT value FROM json_each(?)) AND h.key_id = ?
            AND ${attributeText("r.attributes")} = ?)`,
      params: [
        ...[buckets, keyId, value],
        ...[buckets, keyId, hash, hash, ever, keyId, key, value],
        ...[hash, ever, keyId, buckets, keyId, key, value],
      ],
    };
  }

  private page<R, T>(
    rows: R[],
    page: PageRequest,
    map: (row: R) => T,
    key: (row: R) => { ns: bigint; id: string },
  ): PageResult<T> {
    const more = rows.length > page.limit;
    const kept = more ? rows.slice(0, page.limit) : rows;
    const lastRow = kept[kept.length - 1];
    return { items: kept.map(map), more, last: lastRow === undefined ? null : key(lastRow) };
  }

  /**
   * The services with a span or log whose own timestamp is in the window, each with the
   * newest such timestamp (not when it arrived: a batch from 2018 is not "seen" today).
   */
  services(window: { fromNs: bigint; toNs: bigint }): ServiceRecord[] {
    return this.activity.services(window);
  }

  /** Adds a trace filter's conditions; false when nothing can match (unknown service or key). */
  private traceConditions(filter: Omit<TraceQuery, "page">, where: Where): boolean {
    if (filter.status === "error") where.add("t.error_count > 0");
    if (filter.status === "ok") where.add("t.error_count = 0");
    if (filter.operation !== undefined) {
      where.add(...this.nameIs("t.root_name_id", "t.root_name", filter.operation));
    }
    if (filter.durationMinMs !== undefined) {
      where.add(`${TRACE_DURATION} >= ?`, msToNsAtLeast(filter.durationMinMs));
    }
    if (filter.service !== undefined) {
      const id = this.serviceId(filter.service);
      if (id === null) return false;
      where.add("EXISTS (SELECT 1 FROM trace_services ts WHERE ts.trace_key = t.trace_key AND ts.service_id = ?)", id);
    }
    for (const [key, value] of filter.attrs) {
      const postings = this.postingsCondition("spans", "s.id", key, value);
      if (!postings) return false;
      where.add(`t.trace_key IN (SELECT s.trace_key FROM spans s WHERE ${postings.sql})`, ...postings.params);
    }
    return true;
  }

  traces(query: TraceQuery): PageResult<TraceSummary> {
    const where = new Where();
    const { page } = query;
    where.add("t.start_ns BETWEEN ? AND ?", page.fromNs, page.toNs);
    if (page.after) {
      where.add(
        "(t.start_ns < ? OR (t.start_ns = ? AND t.trace_id < unhex(?)))",
        page.after.ns,
        page.after.ns,
        page.after.id,
      );
    }
    if (!this.traceConditions(query, where)) return { items: [], more: false, last: null };
    const rows = this.prepare(
      `SELECT ${TRACE_COLUMNS} FROM traces t ${TRACE_JOINS} ${where}
       ORDER BY t.start_ns DESC, t.trace_id DESC LIMIT ?`,
    ).all(...where.params, page.limit + 1) as TraceRow[];
    return this.page(rows, page, toTraceSummary, (row) => ({ ns: row.start_ns, id: idText(row.trace_id) }));
  }

  trace(traceId: string, page: TraceSpanPage = { limit: MAX_TRACE_SPANS }): TraceDetail | null {
    const summary = this.prepare(
      `SELECT t.trace_key, ${TRACE_COLUMNS} FROM traces t ${TRACE_JOINS} WHERE t.trace_id = unhex(?)`,
    ).get(traceId) as (TraceRow & { trace_key: bigint }) | undefined;
    if (!summary) return null;
    const after = page.after
      ? {
          sql: "AND (s.start_ns > ? OR (s.start_ns = ? AND s.span_id > unhex(?)))",
          params: [page.after.ns, page.after.ns, page.after.id],
        }
      : { sql: "", params: [] };
    // Spans in start order, span id breaking ties (unique within a trace): the keyset of the pages.
    const rows = this.prepare(
      `SELECT ${SPAN_COLUMNS} FROM spans s ${SPAN_JOINS} WHERE s.trace_key = ? ${after.sql}
       ORDER BY s.start_ns, s.span_id LIMIT ?`,
    ).all(summary.trace_key, ...after.params, page.limit + 1) as SpanRow[];
    for (const row of rows) row.trace_id = summary.trace_id;
    const more = rows.length > page.limit;
    const kept = more ? rows.slice(0, page.limit) : rows;
    const last = kept[kept.length - 1];
    return {
      summary: toTraceSummary(summary),
      spans: kept.map(this.spanRecord),
      more,
      last: last === undefined ? null : { ns: last.start_ns, id: idText(last.span_id) },
    };
  }

  storedSpanIds(traceId: string, spanIds: string[]): Set<string> {
    if (spanIds.length === 0) return new Set();
    const found = this.prepare(
      `WITH wanted(id) AS (SELECT unhex(value) FROM json_each(?))
       SELECT ${idHex("s.span_id")} FROM spans s WHERE s.trace_key = (SELECT trace_key FROM traces WHERE trace_id = unhex(?))
       AND ${spanKeySql("s.span_id")} IN (SELECT ${spanKeySql("id")} FROM wanted) AND s.span_id IN (SELECT id FROM wanted)`,
    )
      .pluck()
      .all(JSON.stringify(spanIds), traceId) as string[];
    return new Set(found);
  }

  spans(query: SpanQuery): PageResult<SpanRecord> {
    const where = new Where();
    const { page } = query;
    where.add("s.start_ns BETWEEN ? AND ?", page.fromNs, page.toNs);
    if (page.after) {
      where.add(
        "(s.start_ns < ? OR (s.start_ns = ? AND s.id < ?))",
        page.after.ns,
        page.after.ns,
        BigInt(page.after.id),
      );
    }
    if (query.traceId !== undefined) {
      where.add("s.trace_key = (SELECT trace_key FROM traces WHERE trace_id = unhex(?))", query.traceId);
    }
    if (query.operation !== undefined) where.add(...this.nameIs("s.name_id", "s.name", query.operation));
    if (query.status === "error") where.add("s.status_code = 2");
    if (query.status === "ok") where.add("s.status_code <> 2");
    if (query.parentOperation !== undefined) {
      const [parentName, ...params] = this.nameIs("ps.name_id", "ps.name", query.parentOperation);
      where.add(
        `EXISTS (SELECT 1 FROM spans ps WHERE ${spanOfTraceSql("ps", "s.trace_key", "s.parent_span_id")} AND ${parentName})`,
        ...params,
      );
    }
    if (query.service !== undefined) {
      const id = this.serviceId(query.service);
      if (id === null) return { items: [], more: false, last: null };
      where.add("s.service_id = ?", id);
    }
    for (const [key, value] of query.attrs) {
      const postings = this.postingsCondition("spans", "s.id", key, value);
      if (!postings) return { items: [], more: false, last: null };
      where.add(postings.sql, ...postings.params);
    }
    for (const [key, text] of query.attrContains) {
      where.add(`${attributeText("s.attributes")} LIKE ? ESCAPE '\\'`, key, likeAny(text));
    }
    // The page first (MATERIALIZED: not merged into the outer query), then its traces' ids.
    const rows = this.prepare(
      `WITH page AS MATERIALIZED (
         SELECT ${SPAN_COLUMNS} FROM spans s ${SPAN_JOINS} ${where} ORDER BY s.start_ns DESC, s.id DESC LIMIT ?)
       SELECT page.*, t.trace_id FROM page JOIN traces t ON t.trace_key = page.trace_key
       ORDER BY page.start_ns DESC, page.id DESC`,
    ).all(...where.params, page.limit + 1) as (SpanRow & { id: bigint })[];
    return this.page(rows, page, this.spanRecord, (row) => ({ ns: row.start_ns, id: row.id.toString() }));
  }

  span(spanId: string): SpanRecord[] {
    // One seek per row-id bucket of the span-id index (schema version 3; since 22 it keeps the
    // span id's bytes 6 to 8); CROSS JOIN keeps the buckets the outer loop, so the planner
    // cannot choose to scan the spans instead.
    const rows = this.prepare(
      `WITH RECURSIVE buckets(k) AS (
         SELECT (SELECT min(id) FROM spans) >> ${SPAN_ID_BUCKET_SHIFT}
         UNION ALL SELECT k + 1 FROM buckets WHERE k < (SELECT max(id) FROM spans) >> ${SPAN_ID_BUCKET_SHIFT})
       SELECT ${SPAN_COLUMNS}, st.trace_id FROM buckets b CROSS JOIN spans s ${SPAN_JOINS}
       JOIN traces st ON st.trace_key = s.trace_key
       WHERE (s.id >> ${SPAN_ID_BUCKET_SHIFT}) = b.k AND substr(s.span_id, 6, 3) = substr(unhex(@span), 6, 3)
         AND s.span_id = unhex(@span)
       ORDER BY s.start_ns DESC, st.trace_id`,
    ).all({ span: spanId }) as SpanRow[];
    return rows.map(this.spanRecord);
  }

  /** Adds a log filter's conditions; false when nothing can match. */
  private logConditions(filter: Omit<LogQuery, "page">, where: Where): boolean {
    if (filter.traceId !== undefined) {
      // One seek per row-id bucket of logs_by_trace (schema version 6; the trace id's last 4
      // bytes since 18), as for span ids.
      where.add(
        `l.id IN (WITH RECURSIVE buckets(k) AS (
           SELECT (SELECT min(id) FROM logs) >> ${LOG_TRACE_BUCKET_SHIFT}
           UNION ALL SELECT k + 1 FROM buckets WHERE k < (SELECT max(id) FROM logs) >> ${LOG_TRACE_BUCKET_SHIFT})
         SELECT x.id FROM buckets b CROSS JOIN logs x WHERE (x.id >> ${LOG_TRACE_BUCKET_SHIFT}) = b.k
           AND substr(x.trace_id, 13, 4) = substr(unhex(?), 13, 4) AND x.trace_id = unhex(?))`,
        filter.traceId,
        filter.traceId,
      );
    }
    if (filter.spanId !== undefined) where.add("l.span_id = unhex(?)", filter.spanId);
    if (filter.severity !== undefined) {
      // LIKE folds ASCII letters only, on both sides; lowercasing the text here would fold the
      // others too (É to é), so that a record's own severity text no longer matched it.
      const pattern = likeAny(filter.severity);
      where.add(
        `(coalesce(${logSeverityTextSql("l")}, '') LIKE ? ESCAPE '\\' OR ${SEVERITY_NAME} LIKE ? ESCAPE '\\')`,
        pattern,
        pattern,
      );
    }
    if (filter.contains !== undefined) {
      const pattern = likeAny(filter.contains);
      // Text that JSON does not escape appears as itself in the stored JSON of any body that
      // contains it, so a plain LIKE on the stored text rules out most rows without parsing them.
      if (JSON.stringify(filter.contains) === `"${filter.contains}"`) where.add("l.body LIKE ? ESCAPE '\\'", pattern);
      // A string body is matched as its text, other bodies as their JSON.
      where.add(
        "(CASE WHEN json_type(l.body) = 'text' THEN json_extract(l.body, '$') ELSE l.body END) LIKE ? ESCAPE '\\'",
        pattern,
      );
    }
    if (filter.service !== undefined) {
      const id = this.serviceId(filter.service);
      if (id === null) return false;
      where.add("l.service_id = ?", id);
    }
    for (const [key, value] of filter.attrs) {
      const postings = this.postingsCondition("logs", "l.id", key, value);
      if (!postings) return false;
      where.add(postings.sql, ...postings.params);
    }
    for (const [key, text] of filter.attrContains) {
      where.add(`${attributeText("l.attributes")} LIKE ? ESCAPE '\\'`, key, likeAny(text));
    }
    return true;
  }

  logs(query: LogQuery): PageResult<LogRecord> {
    const where = new Where();
    const { page } = query;
    where.add("l.ts_ns BETWEEN ? AND ?", page.fromNs, page.toNs);
    if (page.after) {
      where.add("(l.ts_ns < ? OR (l.ts_ns = ? AND l.id < ?))", page.after.ns, page.after.ns, BigInt(page.after.id));
    }
    if (!this.logConditions(query, where)) return { items: [], more: false, last: null };
    // The page's ids first, then their records. The index by time orders records of one
    // nanosecond by a hash, not by id (schema 18), so the ids of such a tie are sorted before
    // the LIMIT: from the index alone, not from whole joined records (a request of records
    // with no time of their own shares one time: 50,000 of them cost 45 ms a page the other
    // way; bench/log-ties). The conditions name `l` alone.
    const rows = this.prepare(
      `SELECT ${LOG_COLUMNS} FROM logs l ${LOG_RECORD_JOINS}
       WHERE l.id IN (SELECT l.id FROM logs l ${where} ORDER BY l.ts_ns DESC, l.id DESC LIMIT ?)
       ORDER BY l.ts_ns DESC, l.id DESC`,
    ).all(...where.params, page.limit + 1) as (LogRow & { id: bigint })[];
    return this.page(rows, page, this.logRecord, (row) => ({ ns: row.ts_ns, id: row.id.toString() }));
  }

  traceStats(filter: TraceFilter, groupBy: TraceGroupBy, agg: TraceAgg): StatsRow[] {
    const where = new Where();
    // Over a large share of the store, one sequential pass beats an index range with a lookup
    // per trace (docs/perf-history/design-decisions.md, "Queries").
    where.add(`${this.windowIsLarge(filter) ? "+" : ""}t.start_ns BETWEEN ? AND ?`, filter.fromNs, filter.toNs);
    if (!this.traceConditions(filter, where)) return [];
    const keyParams: unknown[] = [];
    let join = "";
    let key: string;
    if (groupBy === "service") key = "rv.name";
    // The name's id, named as the aggregate steps (a join would look it up for every trace).
    else if (groupBy === "operation") key = "coalesce(t.root_name_id, t.root_name)";
    else if (groupBy === "status") key = "CASE WHEN t.error_count > 0 THEN 'error' ELSE 'ok' END";
    else {
      // An attribute of the trace's root span.
      join = `LEFT JOIN spans rs ON ${spanOfTraceSql("rs", "t.trace_key", "t.root_span_id")}`;
      key = attributeText("rs.attributes");
      keyParams.push(groupBy.attr);
    }
    const groups = this.prepare(
      `SELECT obs_trace_groups(${key}, ${TRACE_DURATION}, t.error_count)
       FROM traces t LEFT JOIN services rv ON rv.id = t.root_service_id ${join} ${where}`,
    )
      .pluck()
      .get(...keyParams, ...where.params) as string | null;
    if (!groups) return [];
    const figures = JSON.parse(groups) as GroupFigures<string | number | null>[];
    const ids = figures.flatMap((figure) => (typeof figure.group === "number" ? [figure.group] : []));
    const names = this.spanNames(ids);
    const named = figures.map((figure) =>
      typeof figure.group === "number" ? { ...figure, group: names.get(figure.group) ?? null } : figure,
    );
    return traceGroupRows(named as GroupFigures[], agg).map((row) => ({ ...row, group: capOptionalText(row.group) }));
  }

  /** Whether a window covers more than a twentieth of the time the stored traces span. */
  private windowIsLarge(window: { fromNs: bigint; toNs: bigint }): boolean {
    const oldest = this.prepare("SELECT min(start_ns) FROM traces").pluck().get() as bigint | null;
    if (oldest === null) return false;
    const stored = window.toNs - oldest;
    return stored <= 0n || (window.toNs - window.fromNs) * 20n > stored;
  }

  logStats(filter: LogFilter, groupBy: LogGroupBy): StatsRow[] {
    const where = new Where();
    where.add("l.ts_ns BETWEEN ? AND ?", filter.fromNs, filter.toNs);
    if (!this.logConditions(filter, where)) return [];
    const keyParams: unknown[] = [];
    let key: string;
    if (groupBy === "service") key = "v.name";
    else if (groupBy === "severity") key = LOG_SEVERITY;
    else if (groupBy === "scope") key = "sc.name";
    else {
      key = attributeText("l.attributes");
      keyParams.push(groupBy.attr);
    }
    const rows = this.prepare(
      `SELECT ${key} AS grp, count(*) AS count FROM logs l ${LOG_JOINS} ${where} GROUP BY grp ORDER BY count DESC, grp`,
    ).all(...keyParams, ...where.params) as { grp: string | null; count: bigint }[];
    return rows.map((row) => ({ group: capOptionalText(row.grp), value: Number(row.count), count: Number(row.count) }));
  }

  facets(field: FacetField, window: FacetWindow, limit: number): FacetValue[] {
    return this.facetReader.facets(field, window, limit);
  }
}

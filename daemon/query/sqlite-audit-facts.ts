import type Database from "better-sqlite3";
import { msToNsAtLeast } from "../../shared/time.js";
import {
  type AuditFacts,
  type AuditWindow,
  type ErrorSpanGroup,
  type ErrorTraceGroup,
  emptyFacts,
  type LogSeverityCounts,
  MAX_POINTS_COUNTED,
  type OperationLatency,
  type OrphanSpan,
  type ServiceActivity,
  type SlowTraceGroup,
} from "../audit/audit-model.js";
import { compareText } from "../audit/figures.js";
import { WARN_SEVERITY } from "../store/rollup-buffer.js";
import { idHex, optionalIdHex } from "../store/stored-ids.js";
import { spanEventsSql, spanOfTraceSql } from "../store/stored-span-fields.js";
import { type OperationWindow, RollupWindowReader } from "./rollup-window.js";
import { TRACE_DURATION } from "./span-sql.js";
import { MetricActivityReader } from "./sqlite-metric-activity.js";
import { capText } from "./value-cap.js";

/** Bounds on what the audit reads, so that its cost stays bounded on any store. */
const MAX_GROUPS = 50;
const MAX_ERROR_SPAN_GROUPS = 20_000;
const MAX_OPERATIONS = 2_000;
const MAX_ORPHANS = 5_000;
const EXAMPLES = 5;

/** A burst's correlated traces are read from the service's latest warning and error logs, this many. */
const BURST_LOGS_READ = 1_000;

type Row = Record<string, unknown>;
const num = (value: unknown): number => Number(value ?? 0);
const textOrNull = (value: unknown): string | null => (value === null || value === undefined ? null : String(value));

/**
 * Reads the bounded facts the audit rules need, for a current and a baseline window. Every
 * query is ordered on unique keys, so equal stores give equal facts.
 */
export function readAuditFacts(db: Database.Database, window: AuditWindow): AuditFacts {
  const truncated: string[] = [];
  let serviceId: bigint | null = null;
  if (window.service !== undefined) {
    const id = db.prepare("SELECT id FROM services WHERE name = ?").pluck().get(window.service) as bigint | undefined;
    if (id === undefined) return emptyFacts();
    serviceId = id;
  }
  const current = [window.currentFromNs, window.untilNs] as const;
  const baseline = [window.baselineFromNs, window.currentFromNs] as const;
  const limited = <T>(rows: T[], bound: number, what: string): T[] => {
    if (rows.length <= bound) return rows;
    truncated.push(`${what}: only the first ${bound} were read`);
    return rows.slice(0, bound);
  };

  // Traces: of a service means with a span of that service.
  const traceOfService =
    serviceId === null
      ? ""
      : "AND EXISTS (SELECT 1 FROM trace_services ts WHERE ts.trace_key = t.trace_key AND ts.service_id = @service)";
  const spanOfService = serviceId === null ? "" : "AND s.service_id = @service";
  const bind = (from: bigint, to: bigint, extra: Row = {}) => ({
    from,
    to,
    ...(serviceId === null ? {} : { service: serviceId }),
    ...extra,
  });

  // Per operation and per service, from the rollups: read once per window, shared below.
  const windows = new RollupWindowReader(db, serviceId);
  const serviceNames = new Map(
    (db.prepare("SELECT id, name FROM services").all() as Row[]).map((row) => [num(row.id), String(row.name)]),
  );
  // Traces are grouped by root with one indexed count per root (traces_by_root), which is far
  // cheaper than sorting every trace of a long window into groups.
  interface Root {
    serviceId: bigint | null;
    service: string | null;
    /** As the traces keep it (schema 19): span_names' id, or the name itself past that table's bound. */
    nameId: bigint | null;
    storedName: string | null;
    name: string | null;
  }
  const roots: Root[] = (
    db
      .prepare(
        `SELECT r.root_service_id, r.root_name_id, r.root_name, coalesce(n.name, r.root_name)
         FROM (SELECT DISTINCT root_service_id, root_name_id, root_name FROM traces) r
         LEFT JOIN span_names n ON n.id = r.root_name_id`,
      )
      .raw()
      .all() as [bigint | null, bigint | null, string | null, string | null][]
  ).map(([id, nameId, storedName, name]) => ({
    serviceId: id,
    service: id === null ? null : (serviceNames.get(Number(id)) ?? String(id)),
    nameId,
    storedName,
    name,
  }));
  // A name is kept one way only (store/span-names.ts), so its stored form names one root.
  const ofRoot =
    "t.root_service_id IS @rootService AND t.root_name_id IS @rootNameId AND t.root_name IS @rootStoredName";
  const rootBind = (root: Root, from: bigint, to: bigint, extra: Row) =>
    bind(from, to, { rootService: root.serviceId, rootNameId: root.nameId, rootStoredName: root.storedName, ...extra });
  /** Per root, the traces matching `condition` and the longest of them. */
  const perRoot = (condition: string, from: bigint, to: bigint, extra: Row = {}) => {
    const statement = db.prepare(
      `SELECT COUNT(*) AS n, MAX(${TRACE_DURATION}) AS max_ns FROM traces t
       WHERE ${ofRoot} AND t.start_ns > @from AND t.start_ns <= @to AND ${condition} ${traceOfService}`,
    );
    return roots.map((root) => {
      const row = statement.get(rootBind(root, from, to, extra)) as Row;
      return { root, n: num(row.n), maxNs: num(row.max_ns) };
    });
  };
  /** The roots with matching traces: most first, then by service and operation; at most MAX_GROUPS. */
  const groupsOf = (counts: ReturnType<typeof perRoot>, what: string) =>
    limited(
      counts
        .filter((count) => count.n > 0)
        .sort(
          (a, b) => b.n - a.n || compareText(a.root.service, b.root.service) || compareText(a.root.name, b.root.name),
        ),
      MAX_GROUPS,
      what,
    );
  const countOf = (counts: ReturnType<typeof perRoot>) => new Map(counts.map((count) => [count.root, count.n]));
  /**
   * Up to EXAMPLES traces of a root matching `condition`, in `order` (over start_ns,
   * duration_ns and trace_id), with `span` (over y.trace_key) for each. The inner query reads
   * only the index; the table is visited for the few examples.
   */
  const examplesOf = (root: Root, condition: string, order: string, span: string, extra: Row = {}) =>
    db
      .prepare(
        `SELECT ${idHex("y.trace_id")} AS trace_id, y.duration_ns AS duration_ns, ${optionalIdHex(span)} AS span_id FROM (
           SELECT t.trace_key AS trace_key, t.trace_id AS trace_id, t.start_ns AS start_ns,
             ${TRACE_DURATION} AS duration_ns FROM traces t
           WHERE ${ofRoot} AND t.start_ns > @from AND t.start_ns <= @to AND ${condition} ${traceOfService}
           ORDER BY ${order} LIMIT ${EXAMPLES}
         ) y ORDER BY ${order}`,
      )
      .all(rootBind(root, ...current, extra)) as Row[];

  // error_trace
  const errorTraceGroups = (): ErrorTraceGroup[] => {
    const erroring = "t.error_count > 0";
    const groups = groupsOf(perRoot(erroring, ...current), "error trace groups");
    if (groups.length === 0) return [];
    const totals = countOf(perRoot("1", ...current));
    const before = countOf(perRoot(erroring, ...baseline));
    return groups.map(({ root, n }) => ({
      rootService: root.service,
      rootOperation: root.name,
      errorTraces: n,
      traces: totals.get(root) ?? 0,
      baselineErrorTraces: before.get(root) ?? 0,
      examples: examplesOf(
        root,
        erroring,
        "start_ns DESC, trace_id",
        `(SELECT s.span_id FROM spans s WHERE s.trace_key = y.trace_key AND s.status_code = 2
           ORDER BY s.start_ns, s.span_id LIMIT 1)`,
      ).map((row) => ({ traceId: String(row.trace_id), spanId: textOrNull(row.span_id) })),
    }));
  };

  // new_error_signature: error spans grouped by service, name, message and exception type.
  const exceptionType = (span: string) =>
    `(SELECT json_extract(e.value, '$.attributes."exception.type"') FROM json_each(${spanEventsSql(span)}) e
      WHERE json_extract(e.value, '$.name') = 'exception' LIMIT 1)`;
  const errorSpans = (from: bigint, to: bigint): ErrorSpanGroup[] => {
    // Each group's example is its newest span, ties by trace id, then span id, so that it does
    // not depend on the order rows were stored in: looked up per group at its newest start
    // (one seek in the error index), which costs far less than ordering every error span.
    const rows = db
      .prepare(
        `SELECT g.service AS service, g.name AS name, g.message AS message, g.exception_type AS exception_type,
           g.n AS n, g.newest AS newest, ${idHex("t.trace_id")} AS trace_id, ${idHex("x.span_id")} AS span_id
         FROM (
           SELECT g.*, (
             SELECT y.id FROM spans y JOIN traces yt ON yt.trace_key = y.trace_key
             WHERE y.start_ns = g.newest AND y.status_code = 2 AND y.service_id = g.service_id
               AND y.name_id IS g.name_id AND y.name IS g.stored_name AND y.status_message IS g.message
               AND ${exceptionType("y")} IS g.exception_type
             ORDER BY yt.trace_id, y.span_id LIMIT 1
           ) AS example
           FROM (
             SELECT v.name AS service, coalesce(sn.name, s.name) AS name, s.status_message AS message,
               ${exceptionType("s")} AS exception_type, COUNT(*) AS n, MAX(s.start_ns) AS newest,
               s.service_id AS service_id, s.name_id AS name_id, s.name AS stored_name
             FROM spans s JOIN services v ON v.id = s.service_id LEFT JOIN span_names sn ON sn.id = s.name_id
             WHERE s.start_ns > @from AND s.start_ns <= @to AND s.status_code = 2 ${spanOfService}
             GROUP BY s.service_id, s.name_id, s.name, s.status_message, exception_type
             ORDER BY service, name, message, exception_type
             LIMIT ${MAX_ERROR_SPAN_GROUPS + 1}
           ) g
         ) g JOIN spans x ON x.id = g.example JOIN traces t ON t.trace_key = x.trace_key
         ORDER BY g.service, g.name, g.message, g.exception_type`,
      )
      .all(bind(from, to)) as Row[];
    return limited(rows, MAX_ERROR_SPAN_GROUPS, "error span groups").map((row) => ({
      service: String(row.service),
      operation: String(row.name),
      message: textOrNull(row.message),
      exceptionType: textOrNull(row.exception_type),
      count: num(row.n),
      example: { traceId: String(row.trace_id), spanId: String(row.span_id) },
      newestNs: BigInt(row.newest as bigint),
    }));
  };

  // Latency reads each operation's histogram, so it is bounded by operations; activity below
  // counts spans per service on its own, so that bound never makes a service look silent.
  const operationsIn = (from: bigint, to: bigint) => {
    // With a threshold, latency is judged from slow traces instead (slowTraceGroups).
    if (window.durationMinMs !== undefined) return [];
    const read = windows.operations(from, to, MAX_OPERATIONS);
    if (read.truncated) truncated.push(`operations: only the first ${MAX_OPERATIONS} were read`);
    return read.operations;
  };

  // latency_regression by baseline delta: each operation's duration histogram.
  const latency = (operations: OperationWindow[]): OperationLatency[] =>
    operations.map(({ serviceId, name, rollup }) => ({
      service: serviceNames.get(serviceId) ?? String(serviceId),
      operation: name,
      spans: rollup.spans,
      buckets: rollup.buckets,
      slowest: rollup.slowest.map(([durationNs, spanId, traceId]) => ({
        traceId,
        spanId,
        durationMs: durationNs / 1e6,
      })),
    }));

  // latency_regression by explicit threshold: slow traces grouped by root.
  const slowTraceGroups = (): SlowTraceGroup[] => {
    if (window.durationMinMs === undefined) return [];
    const minNs = msToNsAtLeast(window.durationMinMs);
    const slow = `${TRACE_DURATION} >= @minNs`;
    const groups = groupsOf(perRoot(slow, ...current, { minNs }), "slow trace groups");
    if (groups.length === 0) return [];
    const before = countOf(perRoot(slow, ...baseline, { minNs }));
    return groups.map(({ root, n, maxNs }) => ({
      rootService: root.service,
      rootOperation: root.name,
      count: n,
      maxMs: maxNs / 1e6,
      baselineCount: before.get(root) ?? 0,
      examples: examplesOf(
        root,
        slow,
        "duration_ns DESC, trace_id",
        "(SELECT r.root_span_id FROM traces r WHERE r.trace_key = y.trace_key)",
        { minNs },
      ).map((row) => ({
        traceId: String(row.trace_id),
        spanId: textOrNull(row.span_id),
        durationMs: num(row.duration_ns) / 1e6,
      })),
    }));
  };

  // log_burst: warning and error counts per service in both windows, from the rollups.
  const logsNow = windows.logs(...current);
  const logsBefore = windows.logs(...baseline);
  const logCounts = (): LogSeverityCounts[] => {
    // Evidence comes from the service's latest warning and error logs of the window (bounded).
    const traces = db.prepare(
      `SELECT ${idHex("x.trace_id")} AS trace_id, COUNT(*) AS n FROM (
         SELECT l.trace_id AS trace_id FROM logs l
         WHERE l.service_id = @serviceId AND l.severity_number >= ${WARN_SEVERITY} AND l.ts_ns > @from AND l.ts_ns <= @to
         ORDER BY l.ts_ns DESC LIMIT ${BURST_LOGS_READ}
       ) x WHERE x.trace_id IS NOT NULL
       GROUP BY x.trace_id ORDER BY n DESC, x.trace_id LIMIT ${EXAMPLES}`,
    );
    const examples = db.prepare(
      `SELECT hex(l.hash) AS log_id, ${optionalIdHex("l.trace_id")} AS trace_id, ${optionalIdHex("l.span_id")} AS span_id FROM logs l
       WHERE l.service_id = @serviceId AND l.severity_number >= ${WARN_SEVERITY} AND l.ts_ns > @from AND l.ts_ns <= @to
       ORDER BY l.ts_ns DESC, l.hash LIMIT ${EXAMPLES}`,
    );
    return [...logsNow]
      .filter(([, counts]) => counts.warnings + counts.errors > 0)
      .map(([id, counts]) => {
        const previous = logsBefore.get(id);
        const params = { from: current[0], to: current[1], serviceId: id };
        return {
          service: serviceNames.get(id) ?? String(id),
          currentWarnings: counts.warnings,
          currentErrors: counts.errors,
          baselineWarnings: previous?.warnings ?? 0,
          baselineErrors: previous?.errors ?? 0,
          traces: (traces.all(params) as Row[]).map((trace) => ({
            traceId: String(trace.trace_id),
            logs: num(trace.n),
          })),
          examples: (examples.all(params) as Row[]).map((log) => ({
            logId: String(log.log_id).toLowerCase(),
            traceId: textOrNull(log.trace_id),
            spanId: textOrNull(log.span_id),
          })),
        };
      })
      .sort((a, b) => compareText(a.service, b.service));
  };

  // incomplete_trace: spans of the current window whose parent is not in the store (kept on
  // ingest), of traces quiet since the grace period. Newest first, so that the bound keeps the
  // ones the evidence names; orphans still in flight would only crowd out settled ones.
  const orphanSpans = (): OrphanSpan[] => {
    const rows = db
      .prepare(
        `SELECT ${idHex("o.trace_id")} AS trace_id, ${idHex("o.span_id")} AS span_id, ${idHex("o.parent_span_id")} AS parent_span_id, v.name AS service,
           o.start_ns AS start_ns, t.end_ns AS trace_end_ns
         FROM orphan_spans o JOIN traces t ON t.trace_id = o.trace_id
           JOIN spans s ON ${spanOfTraceSql("s", "t.trace_key", "o.span_id")}
           JOIN services v ON v.id = s.service_id
         WHERE o.start_ns > @from AND o.start_ns <= @to AND t.end_ns <= @settled ${spanOfService}
         ORDER BY o.start_ns DESC, o.trace_id, o.span_id
         LIMIT ${MAX_ORPHANS + 1}`,
      )
      .all(bind(...current, { settled: window.untilNs - window.graceNs })) as Row[];
    return limited(rows, MAX_ORPHANS, "spans with a missing parent").map((row) => ({
      traceId: String(row.trace_id),
      spanId: String(row.span_id),
      parentSpanId: String(row.parent_span_id),
      service: String(row.service),
      startNs: BigInt(row.start_ns as bigint),
      traceEndNs: BigInt(row.trace_end_ns as bigint),
    }));
  };

  // no_telemetry, and how well the baseline observed each service: spans, logs and metric points.
  const activity = (): ServiceActivity[] => {
    const spansNow = windows.services(...current);
    const spansBefore = windows.services(...baseline);
    const metrics = new MetricActivityReader(db, serviceId);
    const metricsNow = metrics.services(...current);
    const metricsBefore = metrics.services(...baseline);
    const ids = new Set([
      ...spansNow.keys(),
      ...logsNow.keys(),
      ...metricsNow.keys(),
      ...spansBefore.keys(),
      ...logsBefore.keys(),
      ...metricsBefore.keys(),
    ]);
    return [...ids]
      .map((id): ServiceActivity => {
        const newest = [
          spansBefore.get(id)?.newestNs,
          logsBefore.get(id)?.newestNs,
          metricsBefore.get(id)?.newestNs,
        ].filter((value): value is bigint => value !== undefined);
        const currentSpans = spansNow.get(id)?.spans ?? 0;
        const currentLogs = logsNow.get(id)?.logs ?? 0;
        const currentSeries = metricsNow.get(id)?.series ?? 0;
        const baselineSeries = metricsBefore.get(id)?.series ?? 0;
        const silent = currentSpans + currentLogs + currentSeries === 0;
        const service = serviceNames.get(id) ?? String(id);
        let baselinePoints: number | null = null;
        if (silent) {
          baselinePoints = baselineSeries === 0 ? 0 : metrics.points(id, ...baseline);
          if (baselinePoints >= MAX_POINTS_COUNTED) {
            truncated.push(`metric points of ${capText(service)}: only the first ${MAX_POINTS_COUNTED} were counted`);
          }
        }
        return {
          service,
          currentSpans,
          currentLogs,
          baselineSpans: spansBefore.get(id)?.spans ?? 0,
          baselineLogs: logsBefore.get(id)?.logs ?? 0,
          currentSeries,
          baselineSeries,
          baselinePoints,
          baselineLastNs: newest.length ? newest.reduce((a, b) => (a > b ? a : b)) : null,
        };
      })
      .sort((a, b) => compareText(a.service, b.service));
  };

  return {
    errorTraceGroups: errorTraceGroups(),
    errorSpans: { current: errorSpans(...current), baseline: errorSpans(...baseline) },
    latency: { current: latency(operationsIn(...current)), baseline: latency(operationsIn(...baseline)) },
    slowTraceGroups: slowTraceGroups(),
    logCounts: logCounts(),
    orphanSpans: orphanSpans(),
    activity: activity(),
    // Both windows can reach a bound: it is said once.
    truncated: [...new Set(truncated)],
  };
}

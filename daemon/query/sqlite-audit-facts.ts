import type Database from "better-sqlite3";
import {
  type AuditFacts,
  type AuditWindow,
  type ErrorSpanGroup,
  type ErrorTraceGroup,
  emptyFacts,
  type LogSeverityCounts,
  type OperationLatency,
  type OrphanSpan,
  type ServiceActivity,
  type SlowTraceGroup,
} from "../audit/audit-model.js";

/** Bounds on what the audit reads, so that its cost stays bounded on any store. */
const MAX_GROUPS = 50;
const MAX_ERROR_SPAN_GROUPS = 20_000;
const MAX_OPERATIONS = 2_000;
const MAX_ORPHANS = 5_000;
const EXAMPLES = 5;

/** Warning-level logs start at severity 13 (WARN), error-level at 17 (ERROR). */
const WARN = 13;
const ERROR = 17;

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
      : "AND EXISTS (SELECT 1 FROM trace_services ts WHERE ts.trace_id = t.trace_id AND ts.service_id = @service)";
  const spanOfService = serviceId === null ? "" : "AND s.service_id = @service";
  const logOfService = serviceId === null ? "" : "AND l.service_id = @service";
  const bind = (from: bigint, to: bigint, extra: Row = {}) => ({
    from,
    to,
    ...(serviceId === null ? {} : { service: serviceId }),
    ...extra,
  });

  const traceGroups = (condition: string, from: bigint, to: bigint, extra: Row = {}) =>
    db
      .prepare(
        `SELECT t.root_service_id AS root_service_id, rv.name AS root_service, t.root_name AS root_name, COUNT(*) AS n,
           MAX(t.end_ns - t.start_ns) AS max_ns
         FROM traces t LEFT JOIN services rv ON rv.id = t.root_service_id
         WHERE t.start_ns > @from AND t.start_ns <= @to AND ${condition} ${traceOfService}
         GROUP BY t.root_service_id, t.root_name
         ORDER BY n DESC, root_service, root_name
         LIMIT ${MAX_GROUPS + 1}`,
      )
      .all(bind(from, to, extra)) as Row[];
  const rootKey = (row: Row) => `${row.root_service_id ?? ""}\u0000${row.root_name ?? ""}`;
  /** Traces per root matching `condition`, in one grouped query. */
  const countsByRoot = (condition: string, from: bigint, to: bigint, extra: Row = {}) =>
    new Map(
      (
        db
          .prepare(
            `SELECT t.root_service_id AS root_service_id, t.root_name AS root_name, COUNT(*) AS n FROM traces t
             WHERE t.start_ns > @from AND t.start_ns <= @to AND ${condition} ${traceOfService}
             GROUP BY t.root_service_id, t.root_name`,
          )
          .all(bind(from, to, extra)) as Row[]
      ).map((row) => [rootKey(row), num(row.n)]),
    );
  /** Up to EXAMPLES traces per root matching `condition`, in `order`, with `span` for each. */
  const examplesByRoot = (condition: string, order: string, span: string, extra: Row = {}) => {
    const rows = db
      .prepare(
        `SELECT x.root_service_id, x.root_name, x.trace_id, x.duration_ns, ${span} AS span_id FROM (
           SELECT t.root_service_id AS root_service_id, t.root_name AS root_name, t.trace_id AS trace_id,
             t.root_span_id AS root_span_id, t.end_ns - t.start_ns AS duration_ns,
             ROW_NUMBER() OVER (PARTITION BY t.root_service_id, t.root_name ORDER BY ${order}) AS rank
           FROM traces t WHERE t.start_ns > @from AND t.start_ns <= @to AND ${condition} ${traceOfService}
         ) x WHERE x.rank <= ${EXAMPLES} ORDER BY x.rank`,
      )
      .all(bind(...current, extra)) as Row[];
    const byRoot = new Map<string, Row[]>();
    for (const row of rows) byRoot.set(rootKey(row), [...(byRoot.get(rootKey(row)) ?? []), row]);
    return byRoot;
  };

  // error_trace
  const errorTraceGroups = (): ErrorTraceGroup[] => {
    const groups = limited(traceGroups("t.error_count > 0", ...current), MAX_GROUPS, "error trace groups");
    if (groups.length === 0) return [];
    const totals = countsByRoot("1", ...current);
    const before = countsByRoot("t.error_count > 0", ...baseline);
    const examples = examplesByRoot(
      "t.error_count > 0",
      "t.start_ns DESC, t.trace_id",
      `(SELECT s.span_id FROM spans s WHERE s.trace_id = x.trace_id AND s.status_code = 2
         ORDER BY s.start_ns, s.span_id LIMIT 1)`,
    );
    return groups.map((group) => ({
      rootService: textOrNull(group.root_service),
      rootOperation: textOrNull(group.root_name),
      errorTraces: num(group.n),
      traces: totals.get(rootKey(group)) ?? 0,
      baselineErrorTraces: before.get(rootKey(group)) ?? 0,
      examples: (examples.get(rootKey(group)) ?? []).map((row) => ({
        traceId: String(row.trace_id),
        spanId: textOrNull(row.span_id),
      })),
    }));
  };

  // new_error_signature: error spans grouped by service, name, message and exception type.
  const errorSpans = (from: bigint, to: bigint): ErrorSpanGroup[] => {
    const rows = db
      .prepare(
        `SELECT v.name AS service, s.name AS name, s.status_message AS message,
           (SELECT json_extract(e.value, '$.attributes."exception.type"') FROM json_each(s.events) e
            WHERE json_extract(e.value, '$.name') = 'exception' LIMIT 1) AS exception_type,
           COUNT(*) AS n, MAX(s.start_ns) AS newest, s.trace_id AS trace_id, s.span_id AS span_id
         FROM spans s JOIN services v ON v.id = s.service_id
         WHERE s.start_ns > @from AND s.start_ns <= @to AND s.status_code = 2 ${spanOfService}
         GROUP BY s.service_id, s.name, s.status_message, exception_type
         ORDER BY service, name, message, exception_type
         LIMIT ${MAX_ERROR_SPAN_GROUPS + 1}`,
      )
      .all(bind(from, to)) as Row[];
    // SQLite gives the bare columns trace_id and span_id from the row holding MAX(start_ns).
    return limited(rows, MAX_ERROR_SPAN_GROUPS, "error span groups").map((row) => ({
      service: String(row.service),
      operation: String(row.name),
      message: textOrNull(row.message),
      exceptionType: textOrNull(row.exception_type),
      count: num(row.n),
      example: { traceId: String(row.trace_id), spanId: String(row.span_id) },
    }));
  };

  // latency_regression by baseline delta: every span duration per operation.
  const latency = (from: bigint, to: bigint): OperationLatency[] => {
    const operations = new Map<string, OperationLatency>();
    const statement = db.prepare(
      `SELECT v.name AS service, s.name AS name, s.duration_ns AS duration_ns, s.trace_id AS trace_id, s.span_id AS span_id
       FROM spans s JOIN services v ON v.id = s.service_id
       WHERE s.start_ns > @from AND s.start_ns <= @to ${spanOfService}`,
    );
    for (const row of statement.iterate(bind(from, to)) as IterableIterator<Row>) {
      const key = `${row.service}\u0000${row.name}`;
      let operation = operations.get(key);
      if (!operation) {
        if (operations.size >= MAX_OPERATIONS) continue;
        operation = { service: String(row.service), operation: String(row.name), durationsMs: [], slowest: [] };
        operations.set(key, operation);
      }
      const durationMs = num(row.duration_ns) / 1e6;
      operation.durationsMs.push(durationMs);
      const { slowest } = operation;
      if (slowest.length < EXAMPLES || durationMs > (slowest[slowest.length - 1]?.durationMs ?? 0)) {
        slowest.push({ traceId: String(row.trace_id), spanId: String(row.span_id), durationMs });
        // Slowest first; ties by span id so the choice does not depend on scan order.
        slowest.sort((a, b) => b.durationMs - a.durationMs || ((a.spanId ?? "") < (b.spanId ?? "") ? -1 : 1));
        slowest.length = Math.min(slowest.length, EXAMPLES);
      }
    }
    if (operations.size >= MAX_OPERATIONS) truncated.push(`operations: only the first ${MAX_OPERATIONS} were read`);
    return [...operations.values()];
  };

  // latency_regression by explicit threshold: slow traces grouped by root.
  const slowTraceGroups = (): SlowTraceGroup[] => {
    if (window.durationMinMs === undefined) return [];
    const minNs = BigInt(Math.ceil(window.durationMinMs * 1e6));
    const slow = "t.end_ns - t.start_ns >= @minNs";
    const groups = limited(traceGroups(slow, ...current, { minNs }), MAX_GROUPS, "slow trace groups");
    if (groups.length === 0) return [];
    const before = countsByRoot(slow, ...baseline, { minNs });
    const examples = examplesByRoot(slow, "t.end_ns - t.start_ns DESC, t.trace_id", "x.root_span_id", { minNs });
    return groups.map((group) => ({
      rootService: textOrNull(group.root_service),
      rootOperation: textOrNull(group.root_name),
      count: num(group.n),
      maxMs: num(group.max_ns) / 1e6,
      baselineCount: before.get(rootKey(group)) ?? 0,
      examples: (examples.get(rootKey(group)) ?? []).map((row) => ({
        traceId: String(row.trace_id),
        spanId: textOrNull(row.span_id),
        durationMs: num(row.duration_ns) / 1e6,
      })),
    }));
  };

  // log_burst: warning and error counts per service in both windows.
  const logCounts = (): LogSeverityCounts[] => {
    const counts = (from: bigint, to: bigint) =>
      db
        .prepare(
          `SELECT v.name AS service, l.service_id AS service_id,
             SUM(l.severity_number < ${ERROR}) AS warnings, SUM(l.severity_number >= ${ERROR}) AS errors
           FROM logs l JOIN services v ON v.id = l.service_id
           WHERE l.ts_ns > @from AND l.ts_ns <= @to AND l.severity_number >= ${WARN} ${logOfService}
           GROUP BY l.service_id ORDER BY service`,
        )
        .all(bind(from, to)) as Row[];
    const before = new Map((counts(...baseline) as Row[]).map((row) => [String(row.service), row]));
    return (counts(...current) as Row[]).map((row) => {
      const previous = before.get(String(row.service));
      const params = bind(...current, { serviceId: row.service_id });
      const traces = db
        .prepare(
          `SELECT l.trace_id AS trace_id, COUNT(*) AS n FROM logs l
           WHERE l.ts_ns > @from AND l.ts_ns <= @to AND l.severity_number >= ${WARN} AND l.service_id = @serviceId
             AND l.trace_id IS NOT NULL
           GROUP BY l.trace_id ORDER BY n DESC, l.trace_id LIMIT ${EXAMPLES}`,
        )
        .all(params) as Row[];
      const examples = db
        .prepare(
          `SELECT hex(l.hash) AS log_id, l.trace_id AS trace_id, l.span_id AS span_id FROM logs l
           WHERE l.ts_ns > @from AND l.ts_ns <= @to AND l.severity_number >= ${WARN} AND l.service_id = @serviceId
           ORDER BY l.ts_ns DESC, l.hash LIMIT ${EXAMPLES}`,
        )
        .all(params) as Row[];
      return {
        service: String(row.service),
        currentWarnings: num(row.warnings),
        currentErrors: num(row.errors),
        baselineWarnings: num(previous?.warnings),
        baselineErrors: num(previous?.errors),
        traces: traces.map((trace) => ({ traceId: String(trace.trace_id), logs: num(trace.n) })),
        examples: examples.map((log) => ({
          logId: String(log.log_id).toLowerCase(),
          traceId: textOrNull(log.trace_id),
          spanId: textOrNull(log.span_id),
        })),
      };
    });
  };

  // incomplete_trace: spans of the current window whose parent is not in the store.
  const orphanSpans = (): OrphanSpan[] => {
    const rows = db
      .prepare(
        `SELECT s.trace_id AS trace_id, s.span_id AS span_id, s.parent_span_id AS parent_span_id, v.name AS service,
           t.end_ns AS trace_end_ns
         FROM spans s JOIN services v ON v.id = s.service_id JOIN traces t ON t.trace_id = s.trace_id
         WHERE s.start_ns > @from AND s.start_ns <= @to AND s.parent_span_id IS NOT NULL ${spanOfService}
           AND NOT EXISTS (SELECT 1 FROM spans p WHERE p.trace_id = s.trace_id AND p.span_id = s.parent_span_id)
         ORDER BY service, s.trace_id, s.span_id
         LIMIT ${MAX_ORPHANS + 1}`,
      )
      .all(bind(...current)) as Row[];
    return limited(rows, MAX_ORPHANS, "spans with a missing parent").map((row) => ({
      traceId: String(row.trace_id),
      spanId: String(row.span_id),
      parentSpanId: String(row.parent_span_id),
      service: String(row.service),
      traceEndNs: BigInt(row.trace_end_ns as bigint),
    }));
  };

  // no_telemetry, and how well the baseline observed each service.
  const activity = (): ServiceActivity[] => {
    const perService = (table: "spans" | "logs", column: string, from: bigint, to: bigint) =>
      new Map(
        (
          db
            .prepare(
              `SELECT x.service_id AS id, COUNT(*) AS n, MAX(x.${column}) AS newest FROM ${table} x
               WHERE x.${column} > @from AND x.${column} <= @to ${serviceId === null ? "" : "AND x.service_id = @service"}
               GROUP BY x.service_id`,
            )
            .all(bind(from, to)) as Row[]
        ).map((row) => [num(row.id), { n: num(row.n), newest: BigInt(row.newest as bigint) }]),
      );
    const spansNow = perService("spans", "start_ns", ...current);
    const logsNow = perService("logs", "ts_ns", ...current);
    const spansBefore = perService("spans", "start_ns", ...baseline);
    const logsBefore = perService("logs", "ts_ns", ...baseline);
    const ids = new Set([...spansNow.keys(), ...logsNow.keys(), ...spansBefore.keys(), ...logsBefore.keys()]);
    const names = new Map(
      (db.prepare("SELECT id, name FROM services").all() as Row[]).map((row) => [num(row.id), String(row.name)]),
    );
    return [...ids]
      .map((id): ServiceActivity => {
        const newest = [spansBefore.get(id)?.newest, logsBefore.get(id)?.newest].filter(
          (value): value is bigint => value !== undefined,
        );
        return {
          service: names.get(id) ?? String(id),
          currentSpans: spansNow.get(id)?.n ?? 0,
          currentLogs: logsNow.get(id)?.n ?? 0,
          baselineSpans: spansBefore.get(id)?.n ?? 0,
          baselineLogs: logsBefore.get(id)?.n ?? 0,
          baselineLastNs: newest.length ? newest.reduce((a, b) => (a > b ? a : b)) : null,
        };
      })
      .sort((a, b) => (a.service < b.service ? -1 : a.service > b.service ? 1 : 0));
  };

  return {
    errorTraceGroups: errorTraceGroups(),
    errorSpans: { current: errorSpans(...current), baseline: errorSpans(...baseline) },
    latency:
      window.durationMinMs === undefined
        ? { current: latency(...current), baseline: latency(...baseline) }
        : { current: [], baseline: [] },
    slowTraceGroups: slowTraceGroups(),
    logCounts: logCounts(),
    orphanSpans: orphanSpans(),
    activity: activity(),
    truncated,
  };
}

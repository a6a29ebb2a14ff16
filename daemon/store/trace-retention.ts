import type Database from "better-sqlite3";
import type { RetentionCompanion } from "../signals/signal-module.js";

/** What retention selects of a deleted span, for its orphan entry and its trace's summary. */
interface DeletedSpan extends Record<string, unknown> {
  trace_key: bigint;
  /** Stored bytes (stored-ids.ts), handed back to SQL as they are. */
  span_id: Buffer;
}

/**
 * What retention does beside deleting spans: their orphan entries go, and each trace they
 * belonged to has its summary (times, counts, root, services) recomputed from the spans left,
 * or goes when none are left.
 */
export function traceSummaryUpkeep(db: Database.Database): RetentionCompanion {
  const stmt = {
    // Before the trace's row may go (refreshTrace): orphans are keyed by the trace's id.
    deleteOrphan: db.prepare(
      "DELETE FROM orphan_spans WHERE trace_id = (SELECT trace_id FROM traces WHERE trace_key = ?) AND span_id = ?",
    ),
    traceStats: db.prepare(
      "SELECT count(*) AS spans, min(start_ns) AS start_ns, max(start_ns + duration_ns) AS end_ns, coalesce(sum(status_code = 2), 0) AS errors FROM spans WHERE trace_key = ?",
    ),
    traceRoot: db.prepare(
      "SELECT span_id, service_id, name_id, name FROM spans WHERE trace_key = ? AND parent_span_id IS NULL ORDER BY start_ns, span_id LIMIT 1",
    ),
    updateTrace: db.prepare(
      "UPDATE traces SET start_ns = ?, end_ns = ?, span_count = ?, error_count = ?, root_span_id = ?, root_service_id = ?, root_name_id = ?, root_name = ? WHERE trace_key = ?",
    ),
    deleteTrace: db.prepare("DELETE FROM traces WHERE trace_key = ?"),
    deleteTraceServices: db.prepare("DELETE FROM trace_services WHERE trace_key = ?"),
    refillTraceServices: db.prepare(
      "INSERT OR IGNORE INTO trace_services (trace_key, service_id) SELECT DISTINCT trace_key, service_id FROM spans WHERE trace_key = ?",
    ),
    counter: db.prepare("UPDATE counters SET value = value - ? WHERE name = ?"),
  };

  /** Recomputes a trace summary after some of its spans were deleted; false when none remain. */
  function refreshTrace(traceKey: bigint): boolean {
    const stats = stmt.traceStats.get(traceKey) as { spans: bigint; start_ns: bigint; end_ns: bigint; errors: bigint };
    if (stats.spans === 0n) {
      stmt.deleteTrace.run(traceKey);
      stmt.deleteTraceServices.run(traceKey);
      return false;
    }
    const root = stmt.traceRoot.get(traceKey) as
      | { span_id: Buffer; service_id: bigint; name_id: bigint | null; name: string | null }
      | undefined;
    stmt.updateTrace.run(
      stats.start_ns,
      stats.end_ns,
      stats.spans,
      stats.errors,
      root?.span_id ?? null,
      root?.service_id ?? null,
      root?.name_id ?? null,
      root?.name ?? null,
      traceKey,
    );
    stmt.deleteTraceServices.run(traceKey);
    stmt.refillTraceServices.run(traceKey);
    return true;
  }

  return {
    columns: ["trace_key", "span_id"],
    deleted(rows) {
      const traces = new Set<bigint>();
      for (const row of rows as readonly DeletedSpan[]) {
        stmt.deleteOrphan.run(row.trace_key, row.span_id);
        traces.add(row.trace_key);
      }
      let tracesGone = 0;
      for (const traceKey of traces) tracesGone += refreshTrace(traceKey) ? 0 : 1;
      if (tracesGone) stmt.counter.run(tracesGone, "traces");
    },
  };
}

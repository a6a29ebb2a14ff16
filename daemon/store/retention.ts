import type Database from "better-sqlite3";
import { postingBucket } from "./postings.js";
import { ROLLUP_WIDTHS } from "./rollup-slots.js";

export interface RetentionPolicy {
  /** Telemetry older than this is deleted. */
  maxAgeMs: number;
  /** The database's used pages are kept under this many bytes, oldest telemetry deleted first. */
  maxBytes: number;
  /** Rows deleted per transaction, so writes and reads keep flowing between batches. */
  batchRows: number;
}

export interface TrimResult {
  spans: number;
  logs: number;
}

type Table = "spans" | "logs";

/** A span to delete, with what its trace summary and orphan entry are found by. */
interface SpanRow {
  id: bigint;
  trace_key: bigint;
  trace_id: string;
  span_id: string;
  start_ns: bigint;
}

interface LogRow {
  id: bigint;
  ts_ns: bigint;
}

/**
 * Counter names of the latest start (spans) and timestamp (logs) retention has deleted: rollup
 * readers trust only slots after them (daemon/query/rollup-window.ts).
 */
export const TRIMMED_THROUGH = { spans: "spans_trimmed_through_ns", logs: "logs_trimmed_through_ns" } as const;

function latest(times: bigint[]): bigint {
  let max = times[0] as bigint;
  for (const t of times) if (t > max) max = t;
  return max;
}

/**
 * Deletes the oldest telemetry in bounded batches. Every call is one small transaction;
 * the writer worker interleaves them with ingestion.
 */
export class Retention {
  private readonly stmt: Record<string, Database.Statement>;

  constructor(
    private readonly db: Database.Database,
    readonly policy: RetentionPolicy,
  ) {
    this.stmt = {
      oldSpans: db.prepare(
        "SELECT id, trace_key, trace_id, span_id, start_ns FROM spans WHERE start_ns < ? ORDER BY start_ns LIMIT ?",
      ),
      oldLogs: db.prepare("SELECT id, ts_ns FROM logs WHERE ts_ns < ? ORDER BY ts_ns LIMIT ?"),
      // Size trimming takes rows in the order they were stored: they sit together in the table
      // and its indexes, and a trace's spans mostly go together, where the oldest by start
      // time are spread over every row stored while they were current (docs/perf-history/2026-11.md).
      firstSpans: db.prepare("SELECT id, trace_key, trace_id, span_id, start_ns FROM spans ORDER BY id LIMIT ?"),
      firstLogs: db.prepare("SELECT id, ts_ns FROM logs ORDER BY id LIMIT ?"),
      // The latest time of any row deleted so far (TRIMMED_THROUGH): rollup slots after it lost
      // nothing. In storage order a row may go before an older one that arrived later.
      trimmedThrough: db.prepare(
        "INSERT INTO counters (name, value) VALUES (?, ?) ON CONFLICT (name) DO UPDATE SET value = max(value, excluded.value)",
      ),
      oldestSpan: db.prepare("SELECT start_ns FROM spans ORDER BY start_ns LIMIT 1").pluck(),
      oldestLog: db.prepare("SELECT ts_ns FROM logs ORDER BY ts_ns LIMIT 1").pluck(),
      deleteSpan: db.prepare("DELETE FROM spans WHERE id = ?"),
      deleteLog: db.prepare("DELETE FROM logs WHERE id = ?"),
      deleteOrphan: db.prepare("DELETE FROM orphan_spans WHERE trace_id = ? AND span_id = ?"),
      // A slot is dropped once every row it counted is gone: it ends at or before the oldest survivor.
      dropSpanRollups: db.prepare("DELETE FROM span_rollups WHERE width = ? AND slot <= ?"),
      dropLogRollups: db.prepare("DELETE FROM log_rollups WHERE width = ? AND slot <= ?"),
      // Ids are never reused, so an entry whose last row is below the lowest surviving id names
      // only deleted rows. Whole buckets below the lowest surviving row's go in one range delete.
      minSpanRow: db.prepare("SELECT min(id) FROM spans").pluck(),
      minLogRow: db.prepare("SELECT min(id) FROM logs").pluck(),
      dropSpanPostings: db.prepare("DELETE FROM span_postings WHERE bucket < ? AND last_row < ?"),
      dropLogPostings: db.prepare("DELETE FROM log_postings WHERE bucket < ? AND last_row < ?"),
      traceStats: db.prepare(
        "SELECT count(*) AS spans, min(start_ns) AS start_ns, max(end_ns) AS end_ns, coalesce(sum(status_code = 2), 0) AS errors FROM spans WHERE trace_key = ?",
      ),
      traceRoot: db.prepare(
        "SELECT span_id, service_id, name FROM spans WHERE trace_key = ? AND parent_span_id IS NULL ORDER BY start_ns, span_id LIMIT 1",
      ),
      updateTrace: db.prepare(
        "UPDATE traces SET start_ns = ?, end_ns = ?, span_count = ?, error_count = ?, root_span_id = ?, root_service_id = ?, root_name = ? WHERE trace_key = ?",
      ),
      deleteTrace: db.prepare("DELETE FROM traces WHERE trace_key = ?"),
      deleteTraceServices: db.prepare("DELETE FROM trace_services WHERE trace_key = ?"),
      refillTraceServices: db.prepare(
        "INSERT OR IGNORE INTO trace_services (trace_key, service_id) SELECT DISTINCT trace_key, service_id FROM spans WHERE trace_key = ?",
      ),
      counter: db.prepare("UPDATE counters SET value = value - ? WHERE name = ?"),
    };
  }

  /** Bytes in pages that hold data (free pages are reused before the file grows). */
  usedBytes(): number {
    const pageSize = Number(this.db.pragma("page_size", { simple: true }));
    const pages = Number(this.db.pragma("page_count", { simple: true }));
    const free = Number(this.db.pragma("freelist_count", { simple: true }));
    return (pages - free) * pageSize;
  }

  fileBytes(): number {
    const pageSize = Number(this.db.pragma("page_size", { simple: true }));
    return Number(this.db.pragma("page_count", { simple: true })) * pageSize;
  }

  /** Telemetry timed before this is past the age limit: trimmed, and refused on arrival. */
  ageCutoffNs(nowNs: bigint): bigint {
    return nowNs - BigInt(this.policy.maxAgeMs) * 1_000_000n;
  }

  /** One batch of age-based trimming. Returns what was deleted (zero when nothing is too old). */
  trimByAge(nowNs: bigint): TrimResult {
    const cutoff = this.ageCutoffNs(nowNs);
    return this.db.transaction(() => ({
      spans: this.deleteSpans(this.stmt.oldSpans!.all(cutoff, this.policy.batchRows) as SpanRow[]),
      logs: this.deleteLogs(this.stmt.oldLogs!.all(cutoff, this.policy.batchRows) as LogRow[]),
    }))();
  }

  /** One batch of size-based trimming from whichever signal holds the oldest data. */
  trimBySize(): TrimResult {
    if (this.usedBytes() <= this.policy.maxBytes) return { spans: 0, logs: 0 };
    const table = this.oldestTable();
    if (table === null) return { spans: 0, logs: 0 };
    const limit = this.policy.batchRows;
    return this.db.transaction(() =>
      table === "spans"
        ? { spans: this.deleteSpans(this.stmt.firstSpans!.all(limit) as SpanRow[]), logs: 0 }
        : { spans: 0, logs: this.deleteLogs(this.stmt.firstLogs!.all(limit) as LogRow[]) },
    )();
  }

  /** Hands free pages back to the filesystem when the file is over its cap (e.g. after the cap was lowered). */
  releaseFreePages(): void {
    if (this.fileBytes() > this.policy.maxBytes) this.db.pragma("incremental_vacuum");
  }

  private oldestTable(): Table | null {
    const span = this.stmt.oldestSpan!.get() as bigint | undefined;
    const log = this.stmt.oldestLog!.get() as bigint | undefined;
    if (span === undefined && log === undefined) return null;
    if (span === undefined) return "logs";
    if (log === undefined) return "spans";
    return span <= log ? "spans" : "logs";
  }

  private deleteSpans(rows: SpanRow[]): number {
    if (rows.length === 0) return 0;
    const traces = new Set<bigint>();
    for (const row of rows) {
      this.stmt.deleteSpan!.run(row.id);
      this.stmt.deleteOrphan!.run(row.trace_id, row.span_id);
      traces.add(row.trace_key);
    }
    this.stmt.trimmedThrough!.run(TRIMMED_THROUGH.spans, latest(rows.map((row) => row.start_ns)));
    this.dropRollups(this.stmt.oldestSpan!, this.stmt.dropSpanRollups!);
    let tracesGone = 0;
    for (const traceKey of traces) tracesGone += this.refreshTrace(traceKey) ? 0 : 1;
    this.dropPostings(this.stmt.minSpanRow!, this.stmt.dropSpanPostings!);
    this.stmt.counter!.run(rows.length, "spans");
    if (tracesGone) this.stmt.counter!.run(tracesGone, "traces");
    return rows.length;
  }

  private deleteLogs(rows: LogRow[]): number {
    if (rows.length === 0) return 0;
    for (const row of rows) this.stmt.deleteLog!.run(row.id);
    this.stmt.trimmedThrough!.run(TRIMMED_THROUGH.logs, latest(rows.map((row) => row.ts_ns)));
    this.dropRollups(this.stmt.oldestLog!, this.stmt.dropLogRollups!);
    this.dropPostings(this.stmt.minLogRow!, this.stmt.dropLogPostings!);
    this.stmt.counter!.run(rows.length, "logs");
    return rows.length;
  }

  /** Drops the rollup slots that end at or before the oldest surviving row (all of them when none survives). */
  private dropRollups(oldest: Database.Statement, drop: Database.Statement): void {
    const survivor = oldest.get() as bigint | undefined;
    for (const width of ROLLUP_WIDTHS) {
      drop.run(width, survivor === undefined ? BigInt.asIntN(64, 2n ** 63n - 1n) : survivor - width);
    }
  }

  /** Drops the posting entries, in buckets wholly below the lowest surviving row, that name only deleted rows. */
  private dropPostings(minRow: Database.Statement, drop: Database.Statement): void {
    const lowest = minRow.get() as bigint | null;
    // An empty table: every entry names deleted rows.
    const row = lowest === null ? Number.MAX_SAFE_INTEGER : Number(lowest);
    drop.run(lowest === null ? Number.MAX_SAFE_INTEGER : postingBucket(row), row);
  }

  /** Recomputes a trace summary after some of its spans were deleted; false when none remain. */
  private refreshTrace(traceKey: bigint): boolean {
    const stats = this.stmt.traceStats!.get(traceKey) as {
      spans: bigint;
      start_ns: bigint;
      end_ns: bigint;
      errors: bigint;
    };
    if (stats.spans === 0n) {
      this.stmt.deleteTrace!.run(traceKey);
      this.stmt.deleteTraceServices!.run(traceKey);
      return false;
    }
    const root = this.stmt.traceRoot!.get(traceKey) as
      | { span_id: string; service_id: bigint; name: string }
      | undefined;
    this.stmt.updateTrace!.run(
      stats.start_ns,
      stats.end_ns,
      stats.spans,
      stats.errors,
      root?.span_id ?? null,
      root?.service_id ?? null,
      root?.name ?? null,
      traceKey,
    );
    this.stmt.deleteTraceServices!.run(traceKey);
    this.stmt.refillTraceServices!.run(traceKey);
    return true;
  }
}

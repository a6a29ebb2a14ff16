import type Database from "better-sqlite3";
import {
  addSpan,
  emptyOperationRollup,
  encodeRollup,
  mergeRollup,
  mergeStored,
  type OperationRollup,
  type StoredOperationRollup,
} from "./operation-rollup.js";
import { HOUR_NS, MINUTE_NS, ROLLUP_WIDTHS, slotOf } from "./rollup-slots.js";

/** Warning-level logs start at severity 13 (WARN), error-level at 17 (ERROR). */
export const WARN_SEVERITY = 13;
export const ERROR_SEVERITY = 17;

/** Rows kept decoded after a commit; a busy minute's rows are rewritten by every commit. */
const CACHED_ROWS = 2_000;

interface SpanSlot {
  width: bigint;
  slot: bigint;
  serviceId: number;
  name: string;
  rollup: OperationRollup;
}

interface LogSlot {
  width: bigint;
  slot: bigint;
  serviceId: number;
  logs: number;
  warnings: number;
  errors: number;
  newestNs: bigint;
}

/**
 * Gathers the rollup rows of one transaction (per minute and hour: spans per operation with
 * their duration histogram, logs per service by severity) and merges them into the tables
 * at flush. A commit touches a few rows per operation, however many spans it carries.
 */
export class RollupBuffer {
  private readonly spans = new Map<string, SpanSlot>();
  private readonly logs = new Map<string, LogSlot>();
  /** Committed rows as stored, by key, least recently written first. */
  private readonly written = new Map<string, { rowid: bigint; rollup: OperationRollup }>();
  private pendingWrites: [string, { rowid: bigint; rollup: OperationRollup }][] = [];
  private readonly stmt: Record<"readSpanRow" | "addSpanRow" | "updateSpanRow" | "addLogRow", Database.Statement>;

  constructor(db: Database.Database) {
    this.stmt = {
      readSpanRow: db.prepare(
        "SELECT rowid, spans, newest_ns, max_ns, histogram, slowest FROM span_rollups WHERE width = ? AND slot = ? AND service_id = ? AND name = ?",
      ),
      addSpanRow: db.prepare(
        `INSERT INTO span_rollups (width, slot, service_id, name, spans, newest_ns, max_ns, histogram, slowest)
         VALUES (@width, @slot, @serviceId, @name, @spans, @newest_ns, @max_ns, @histogram, @slowest)`,
      ),
      updateSpanRow: db.prepare(
        `UPDATE span_rollups SET spans = @spans, newest_ns = @newest_ns, max_ns = @max_ns, histogram = @histogram,
           slowest = @slowest WHERE rowid = @rowid`,
      ),
      addLogRow: db.prepare(
        `INSERT INTO log_rollups (width, slot, service_id, logs, warnings, errors, newest_ns) VALUES (?, ?, ?, ?, ?, ?, ?)
         ON CONFLICT (width, slot, service_id) DO UPDATE SET logs = logs + excluded.logs,
           warnings = warnings + excluded.warnings, errors = errors + excluded.errors,
           newest_ns = max(newest_ns, excluded.newest_ns)`,
      ),
    };
    this.stmt.readSpanRow.safeIntegers(true);
  }

  /** Counts a span in its minute; flush() adds the minutes up into hours. */
  addSpan(serviceId: number, name: string, startNs: bigint, durationNs: number, spanId: string, traceId: string): void {
    // One BigInt division per span; keys are built from plain numbers (OTLP times are unsigned).
    const minute = Number(startNs / MINUTE_NS);
    const key = `${minute}:${serviceId}:${name}`;
    let entry = this.spans.get(key);
    if (!entry) {
      entry = { width: MINUTE_NS, slot: BigInt(minute) * MINUTE_NS, serviceId, name, rollup: emptyOperationRollup() };
      this.spans.set(key, entry);
    }
    addSpan(entry.rollup, startNs, durationNs, spanId, traceId);
  }

  /** The hour rows of the gathered minutes. */
  private hours(): Map<string, SpanSlot> {
    const hours = new Map<string, SpanSlot>();
    for (const { slot: minute, serviceId, name, rollup } of this.spans.values()) {
      const slot = slotOf(minute, HOUR_NS);
      const key = `${HOUR_NS}:${slot}:${serviceId}:${name}`;
      let entry = hours.get(key);
      if (!entry) {
        entry = { width: HOUR_NS, slot, serviceId, name, rollup: emptyOperationRollup() };
        hours.set(key, entry);
      }
      mergeRollup(entry.rollup, rollup);
    }
    return hours;
  }

  addLog(serviceId: number, tsNs: bigint, severity: number): void {
    for (const width of ROLLUP_WIDTHS) {
      const slot = slotOf(tsNs, width);
      const key = `${width}:${slot}:${serviceId}`;
      let entry = this.logs.get(key);
      if (!entry) {
        entry = { width, slot, serviceId, logs: 0, warnings: 0, errors: 0, newestNs: 0n };
        this.logs.set(key, entry);
      }
      entry.logs += 1;
      if (severity >= ERROR_SEVERITY) entry.errors += 1;
      else if (severity >= WARN_SEVERITY) entry.warnings += 1;
      if (tsNs > entry.newestNs) entry.newestNs = tsNs;
    }
  }

  /**
   * Merges what was gathered into the tables. Call inside the transaction, before commit, and
   * `committed()` after it.
   */
  flush(): void {
    const minutes = [...this.spans].map(([key, entry]): [string, SpanSlot] => [`${MINUTE_NS}:${key}`, entry]);
    for (const [key, { width, slot, serviceId, name, rollup }] of [...this.hours(), ...minutes]) {
      const cached = this.written.get(key);
      let rowid: bigint;
      if (cached) {
        // Merge the few new spans into the decoded row instead of decoding it again.
        mergeRollup(cached.rollup, rollup);
        if (this.stmt.updateSpanRow.run({ rowid: cached.rowid, ...encodeRollup(cached.rollup) }).changes !== 1) {
          // Deleted behind the cache's back: fail this transaction; its retry reads the table.
          throw new Error(`the rollup row ${cached.rowid} was deleted while cached`);
        }
        this.pendingWrites.push([key, cached]);
        continue;
      }
      const stored = this.stmt.readSpanRow.get(width, slot, serviceId, name) as
        | (StoredOperationRollup & { rowid: bigint })
        | undefined;
      if (stored) {
        mergeStored(rollup, stored);
        rowid = stored.rowid;
        this.stmt.updateSpanRow.run({ rowid, ...encodeRollup(rollup) });
      } else {
        rowid = this.stmt.addSpanRow.run({ width, slot, serviceId, name, ...encodeRollup(rollup) })
          .lastInsertRowid as bigint;
      }
      this.pendingWrites.push([key, { rowid, rollup }]);
    }
    for (const entry of this.logs.values()) {
      this.stmt.addLogRow.run(
        entry.width,
        entry.slot,
        entry.serviceId,
        entry.logs,
        entry.warnings,
        entry.errors,
        entry.newestNs,
      );
    }
    this.clear();
  }

  /** The transaction committed: what it wrote is now the stored state. */
  committed(): void {
    for (const [key, row] of this.pendingWrites) {
      this.written.delete(key);
      this.written.set(key, row);
    }
    this.pendingWrites = [];
    for (const key of this.written.keys()) {
      if (this.written.size <= CACHED_ROWS) break;
      this.written.delete(key);
    }
  }

  clear(): void {
    this.spans.clear();
    this.logs.clear();
  }

  /**
   * Forgets every decoded row: after a rollback (the cache may hold uncommitted merges) and
   * after retention deleted rows.
   */
  forget(): void {
    this.clear();
    this.written.clear();
    this.pendingWrites = [];
  }
}

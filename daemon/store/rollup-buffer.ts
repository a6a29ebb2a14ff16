import type Database from "better-sqlite3";
import { MultiRowStatement } from "./multi-row.js";
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

/**
 * Rows a (width, slot, operation) may gather before they are merged into one. Readers add
 * every row of a slot up, so more rows cost reads and bytes; merging rewrites the slot's full
 * histogram, which is what made rewriting every commit's rows expensive. Since rows became
 * varints and bytes (schema 21) a merge is cheap, and 4 rather than 16 took a span's rollup
 * bytes on bench/ingest's workload from 6.0 to 2.9 (docs/store-density.md).
 */
export const COMPACT_AT = 4;
/** Keys whose row counts are remembered; past this the counts start over (reads stay exact). */
const COUNTED_KEYS = 50_000;

const SPAN_ROLLUP_COLUMNS = "(width, slot, service_id, name, spans, newest_ns, max_ns, histogram, slowest)";

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
 * their duration histogram, logs per service by severity) and writes them at flush.
 *
 * Span rollups are appended: each commit adds one row per operation and slot it touched,
 * holding only its own spans, and readers add the rows of a slot up. Once an operation's slot
 * has gathered COMPACT_AT rows they are merged into one. A busy minute is thus rewritten once
 * every COMPACT_AT commits instead of on every commit, and rows that retention trimmed need no
 * special care: whatever rows are left are what the slot holds.
 */
export class RollupBuffer {
  private readonly spans = new Map<string, SpanSlot>();
  private readonly logs = new Map<string, LogSlot>();
  /** Rows stored per span rollup key (at least; counted since this process started). */
  private readonly rowCounts = new Map<string, number>();
  private readonly spanRows: MultiRowStatement;
  private readonly stmt: Record<"readSpanRows" | "dropSpanRows" | "addLogRow", Database.Statement>;

  constructor(db: Database.Database) {
    this.spanRows = new MultiRowStatement(db, `span_rollups ${SPAN_ROLLUP_COLUMNS}`, 9, "", 256, false);
    const key = "width = ? AND slot = ? AND service_id = ? AND name = ?";
    this.stmt = {
      readSpanRows: db.prepare(`SELECT spans, newest_ns, max_ns, histogram, slowest FROM span_rollups WHERE ${key}`),
      dropSpanRows: db.prepare(`DELETE FROM span_rollups WHERE ${key}`),
      addLogRow: db.prepare(
        `INSERT INTO log_rollups (width, slot, service_id, logs, warnings, errors, newest_ns) VALUES (?, ?, ?, ?, ?, ?, ?)
         ON CONFLICT (width, slot, service_id) DO UPDATE SET logs = logs + excluded.logs,
           warnings = warnings + excluded.warnings, errors = errors + excluded.errors,
           newest_ns = max(newest_ns, excluded.newest_ns)`,
      ),
    };
    this.stmt.readSpanRows.safeIntegers(true);
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
  private hours(): SpanSlot[] {
    const hours = new Map<string, SpanSlot>();
    for (const { slot: minute, serviceId, name, rollup } of this.spans.values()) {
      const slot = slotOf(minute, HOUR_NS);
      const key = `${slot}:${serviceId}:${name}`;
      let entry = hours.get(key);
      if (!entry) {
        entry = { width: HOUR_NS, slot, serviceId, name, rollup: emptyOperationRollup() };
        hours.set(key, entry);
      }
      mergeRollup(entry.rollup, rollup);
    }
    return [...hours.values()];
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

  /** Writes what was gathered. Call inside the transaction, before commit. */
  flush(): void {
    const slots = [...this.spans.values(), ...this.hours()];
    const values: unknown[] = [];
    const full: SpanSlot[] = [];
    for (const slot of slots) {
      const { width, serviceId, name, rollup } = slot;
      const stored = encodeRollup(rollup);
      values.push(
        width,
        slot.slot,
        serviceId,
        name,
        stored.spans,
        stored.newest_ns,
        stored.max_ns,
        stored.histogram,
        stored.slowest,
      );
      const key = `${width}:${slot.slot}:${serviceId}:${name}`;
      const rows = (this.rowCounts.get(key) ?? 0) + 1;
      if (rows >= COMPACT_AT) {
        full.push(slot);
        this.rowCounts.delete(key);
      } else {
        if (this.rowCounts.size >= COUNTED_KEYS) this.rowCounts.clear();
        this.rowCounts.set(key, rows);
      }
    }
    this.spanRows.run(values);
    for (const slot of full) this.compact(slot);
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

  /** Merges the rows of one operation's slot into one. */
  private compact({ width, slot, serviceId, name }: SpanSlot): void {
    const merged = emptyOperationRollup();
    for (const row of this.stmt.readSpanRows.all(width, slot, serviceId, name) as StoredOperationRollup[]) {
      mergeStored(merged, row);
    }
    this.stmt.dropSpanRows.run(width, slot, serviceId, name);
    const stored = encodeRollup(merged);
    this.spanRows.run([
      width,
      slot,
      serviceId,
      name,
      stored.spans,
      stored.newest_ns,
      stored.max_ns,
      stored.histogram,
      stored.slowest,
    ]);
  }

  clear(): void {
    this.spans.clear();
    this.logs.clear();
  }

  /** After a rollback: forgets what was gathered and the row counts, which may be off now. */
  forget(): void {
    this.clear();
    this.rowCounts.clear();
  }
}

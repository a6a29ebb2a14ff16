import type Database from "better-sqlite3";
import type { LogBatch, MetricBatch, ResourceRecord, ScopeRecord, SpanBatch } from "../otlp/records.js";
import { type RecordsName, SIGNALS } from "../signals/registry.js";
import { Dictionaries, type ResolvedResource } from "./dictionaries.js";
import { HashedKeys } from "./hashed-postings.js";
import { LogWriter } from "./log-writer.js";
import { MetricWriter } from "./metric-writer.js";
import type { PostingsBuffer } from "./postings.js";
import type { RecordWriter, SharedWriteState } from "./record-writer.js";
import { RollupBuffer } from "./rollup-buffer.js";
import { SpanWriter } from "./span-writer.js";

/**
 * Writes decoded batches into the schema inside `transaction()`, which the writer worker uses
 * to group several requests into one commit. Each signal's module makes the writer of its
 * records (span-writer.ts, log-writer.ts); what they share (dictionaries, rollups, last-seen
 * times, counters) is here and written once per transaction. Re-sent spans and log records are
 * skipped (spans found by their trace and span id, log records by their unique keys), so writes
 * are idempotent.
 */
export class TelemetryWriter implements SharedWriteState {
  readonly dictionaries: Dictionaries;
  readonly rollups: RollupBuffer;
  readonly hashedKeys: HashedKeys;
  /** Every signal's record writer, flushed and cleared with the transaction. */
  private readonly parts = new Map<RecordsName, RecordWriter>();
  private readonly stmt: Record<"lastSeen" | "counter" | "latest" | "serviceCount", Database.Statement>;
  /** Counter changes of one transaction (counters rows by name), applied once at its end. */
  private counts = new Map<string, number>();
  private latestNs = 0n;
  private readonly lastSeen = new Map<number, bigint>();

  /**
   * `collectorStartNs`: when the collector that stores these records started (the writer worker
   * is told); `maxDbBytes`: the store's size cap (0: none).
   */
  constructor(
    private readonly db: Database.Database,
    readonly collectorStartNs: bigint,
    maxDbBytes = 0,
  ) {
    this.dictionaries = new Dictionaries(db, maxDbBytes);
    this.rollups = new RollupBuffer(db);
    this.hashedKeys = new HashedKeys(db);
    for (const signal of SIGNALS) this.parts.set(signal.records, signal.createWriter(db, this));
    this.stmt = {
      lastSeen: db.prepare("UPDATE services SET last_seen_ns = max(last_seen_ns, ?) WHERE id = ?"),
      counter: db.prepare("UPDATE counters SET value = value + ? WHERE name = ?"),
      latest: db.prepare("UPDATE counters SET value = max(value, ?) WHERE name = 'latest_ns'"),
      serviceCount: db.prepare("UPDATE counters SET value = value + ? WHERE name = 'services'"),
    };
    for (const statement of Object.values(this.stmt)) statement.safeIntegers(false);
  }

  resolveScopes(
    batch: { resources: ResourceRecord[]; scopes: ScopeRecord[] },
    receivedNs: bigint,
  ): { resources: ResolvedResource[]; scopes: number[] } {
    return {
      resources: batch.resources.map((r) => this.dictionaries.resource(r, receivedNs)),
      scopes: batch.scopes.map((s) => this.dictionaries.scope(s)),
    };
  }

  /** The writer of a signal's records, for its module's `store`. */
  part(records: RecordsName): RecordWriter {
    return this.parts.get(records) as RecordWriter;
  }

  /** Inserts the spans of one request; returns how many were new (for benches and tests). */
  writeSpans(batch: SpanBatch, receivedNs: bigint): number {
    const spans = this.part("spans");
    if (!(spans instanceof SpanWriter)) throw new Error("the traces module's writer is not a SpanWriter");
    return spans.write(batch, receivedNs);
  }

  /** Inserts the log records of one request; returns how many were new (for benches and tests). */
  writeLogs(batch: LogBatch, receivedNs: bigint): number {
    const logs = this.part("logs");
    if (!(logs instanceof LogWriter)) throw new Error("the logs module's writer is not a LogWriter");
    return logs.write(batch, receivedNs);
  }

  /** Inserts the metric points of one request; returns how many were new (for benches and tests). */
  writeMetrics(batch: MetricBatch, receivedNs: bigint): number {
    const points = this.part("points");
    if (!(points instanceof MetricWriter)) throw new Error("the metrics module's writer is not a MetricWriter");
    return points.write(batch, receivedNs);
  }

  post(buffer: PostingsBuffer, indexed: string[], rowId: number): void {
    for (let i = 0; i < indexed.length; i += 2) {
      buffer.add(this.dictionaries.keyId(indexed[i] as string), indexed[i + 1] as string, rowId);
    }
  }

  noteSeen(serviceId: number, ns: bigint, receivedNs: bigint): void {
    // A time past the record's arrival (a sender's clock ahead, a span "ending" in 2262) counts
    // as its arrival: the latest time only grows, and one such record held it there for good.
    const seen = receivedNs > 0n && ns > receivedNs ? receivedNs : ns;
    const previous = this.lastSeen.get(serviceId);
    if (previous === undefined || seen > previous) this.lastSeen.set(serviceId, seen);
    if (seen > this.latestNs) this.latestNs = seen;
  }

  count(name: string, n: number): void {
    this.counts.set(name, (this.counts.get(name) ?? 0) + n);
  }

  /** Writes the postings, counters and last-seen times gathered since the last flush. Call before commit. */
  flush(): void {
    for (const part of this.parts.values()) part.flush();
    this.rollups.flush();
    for (const [name, n] of this.counts) if (n) this.stmt.counter.run(n, name);
    const newServices = this.dictionaries.takeNewServices();
    if (newServices) this.stmt.serviceCount.run(newServices);
    if (this.latestNs > 0n) this.stmt.latest.run(this.latestNs);
    for (const [serviceId, ns] of this.lastSeen) this.stmt.lastSeen.run(ns, serviceId);
    this.forgetCounts();
  }

  /** Forgets uncommitted state after a rollback. */
  discard(): void {
    this.forgetCounts();
    for (const part of this.parts.values()) part.clear();
    this.rollups.forget();
    this.dictionaries.reset();
  }

  private forgetCounts(): void {
    this.counts = new Map();
    this.latestNs = 0n;
    this.lastSeen.clear();
  }

  /**
   * Writes, in a transaction of its own, what the signals' writers hold across transactions
   * (the open minute of metric series, metric-writer.ts): call before reading what they
   * write, and before closing. Nothing to write, no transaction.
   */
  writeHeld(): void {
    const holding = [...this.parts.values()].filter((part) => part.holds?.() === true);
    if (holding.length === 0) return;
    this.transaction(() => {
      for (const part of holding) part.releaseHeld?.();
    });
  }

  /**
   * Writes, in a transaction of its own, what the signals' writers hold past the last retention
   * pass's cutoff (metric points the pass could not see), so that the next pass deletes them.
   * Returns whether there was any.
   */
  writeForRetention(): boolean {
    const due = [...this.parts.values()].filter((part) => part.retentionDue?.() === true);
    if (due.length === 0) return false;
    this.transaction(() => {
      for (const part of due) part.releaseForRetention?.();
    });
    return true;
  }

  /** Whether the metric writer holds what `writeHeld` would write (for tests). */
  holdsMetrics(): boolean {
    return this.part("points").holds?.() === true;
  }

  /**
   * Runs `work` and the counter flush in one transaction, begun IMMEDIATE: the write lock is
   * taken first, so another connection holding it briefly (a backup, an inspecting tool) is
   * waited out for the busy timeout. A deferred transaction that read before it wrote would be
   * refused the lock at once instead, SQLite waiting only for a connection with no read open.
   */
  transaction<T>(work: () => T): T {
    try {
      const result = this.db
        .transaction(() => {
          const result = work();
          this.flush();
          return result;
        })
        .immediate();
      for (const part of this.parts.values()) part.committed?.();
      return result;
    } catch (error) {
      this.discard();
      throw error;
    }
  }
}

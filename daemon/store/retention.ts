import type Database from "better-sqlite3";
import { noRecords, type RecordCounts, type RecordsName, SIGNALS } from "../signals/registry.js";
import type { RetentionCompanion, RetentionTrimmer, RowTableRetention } from "../signals/signal-module.js";
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

/** Rows deleted per signal's records (`{ spans, logs }`). */
export type TrimResult = RecordCounts;

/** A row to delete: its id, its time, and what the signal's companion asked for. */
interface Row extends Record<string, unknown> {
  id: bigint;
  time_ns: bigint;
}

/**
 * Counter names of the latest time (span start, log timestamp) retention has deleted, per
 * signal's records: rollup readers trust only slots after them (daemon/query/rollup-window.ts).
 */
export const TRIMMED_THROUGH = Object.fromEntries(
  SIGNALS.map((signal) => [signal.records, signal.retention.trimmedThrough]),
) as Readonly<Record<RecordsName, string>>;

function latest(rows: Row[]): bigint {
  let max = (rows[0] as Row).time_ns;
  for (const row of rows) if (row.time_ns > max) max = row.time_ns;
  return max;
}

/** One signal's table as retention deletes from it (its module's `retention`). */
class SignalTable implements RetentionTrimmer {
  private readonly stmt: Record<string, Database.Statement>;
  private readonly companion: RetentionCompanion | null;
  private readonly trimmedThrough: string;

  constructor(
    db: Database.Database,
    readonly records: RecordsName,
    where: RowTableRetention,
  ) {
    this.companion = where.companion?.(db) ?? null;
    const { table, timeColumn: time } = where;
    const columns = ["id", `${time} AS time_ns`, ...(this.companion?.columns ?? [])].join(", ");
    this.stmt = {
      old: db.prepare(`SELECT ${columns} FROM ${table} WHERE ${time} < ? ORDER BY ${time} LIMIT ?`),
      // Size trimming takes rows in the order they were stored: they sit together in the table
      // and its indexes, and a trace's spans mostly go together, where the oldest by start
      // time are spread over every row stored while they were current (docs/perf-history/2026-11.md).
      first: db.prepare(`SELECT ${columns} FROM ${table} ORDER BY id LIMIT ?`),
      oldest: db.prepare(`SELECT ${time} FROM ${table} ORDER BY ${time} LIMIT 1`).pluck(),
      // The earliest time among the rows size trimming deletes next: a batch read by id.
      firstTime: db.prepare(`SELECT min(${time}) FROM (SELECT ${time} FROM ${table} ORDER BY id LIMIT ?)`).pluck(),
      delete: db.prepare(`DELETE FROM ${table} WHERE id = ?`),
      // The latest time of any row deleted so far (TRIMMED_THROUGH): rollup slots after it lost
      // nothing. In storage order a row may go before an older one that arrived later.
      trimmedThrough: db.prepare(
        "INSERT INTO counters (name, value) VALUES (?, ?) ON CONFLICT (name) DO UPDATE SET value = max(value, excluded.value)",
      ),
      // A slot is dropped once every row it counted is gone: it ends at or before the oldest survivor.
      dropRollups: db.prepare(`DELETE FROM ${where.rollupTable} WHERE width = ? AND slot <= ?`),
      // Ids are never reused, so an entry whose last row is below the lowest surviving id names
      // only deleted rows. Whole buckets below the lowest surviving row's go in one range delete.
      minRow: db.prepare(`SELECT min(id) FROM ${table}`).pluck(),
      dropPostings: db.prepare(`DELETE FROM ${where.postingsTable} WHERE bucket < ? AND last_row < ?`),
      // A hashed blob lists rows of its own bucket only (hashed-postings.ts).
      dropHashedPostings: db.prepare(`DELETE FROM ${where.hashedPostingsTable} WHERE bucket < ?`),
      dropPendingHashes: db.prepare(`DELETE FROM ${where.pendingHashesTable} WHERE bucket < ?`),
      counter: db.prepare("UPDATE counters SET value = value - ? WHERE name = ?"),
    };
    this.trimmedThrough = where.trimmedThrough;
  }

  /** Up to `limit` rows timed before `cutoffNs`, oldest first. */
  older(cutoffNs: bigint, limit: number): Row[] {
    return this.stmt.old!.all(cutoffNs, limit) as Row[];
  }

  /** The first `limit` rows stored. */
  first(limit: number): Row[] {
    return this.stmt.first!.all(limit) as Row[];
  }

  /** The oldest row's time, or undefined when the table is empty. */
  oldest(): bigint | undefined {
    return this.stmt.oldest!.get() as bigint | undefined;
  }

  /** The earliest time among the next `limit` rows stored, which size trimming deletes next; undefined when the table is empty. */
  nextOldest(limit: number): bigint | undefined {
    return (this.stmt.firstTime!.get(limit) as bigint | null) ?? undefined;
  }

  trimOlder(cutoffNs: bigint, limit: number): number {
    return this.delete(this.older(cutoffNs, limit));
  }

  trimOldest(limit: number): number {
    return this.delete(this.first(limit));
  }

  /** Deletes `rows` and what refers to them only; returns how many. */
  delete(rows: Row[]): number {
    if (rows.length === 0) return 0;
    for (const row of rows) this.stmt.delete!.run(row.id);
    this.companion?.deleted(rows);
    this.stmt.trimmedThrough!.run(this.trimmedThrough, latest(rows));
    this.dropRollups();
    this.dropPostings();
    this.stmt.counter!.run(rows.length, this.records);
    return rows.length;
  }

  /** Drops the rollup slots that end at or before the oldest surviving row (all of them when none survives). */
  private dropRollups(): void {
    const survivor = this.oldest();
    for (const width of ROLLUP_WIDTHS) {
      this.stmt.dropRollups!.run(width, survivor === undefined ? BigInt.asIntN(64, 2n ** 63n - 1n) : survivor - width);
    }
  }

  /** Drops the posting entries, in buckets wholly below the lowest surviving row, that name only deleted rows. */
  private dropPostings(): void {
    const lowest = this.stmt.minRow!.get() as bigint | null;
    // An empty table: every entry names deleted rows.
    const row = lowest === null ? Number.MAX_SAFE_INTEGER : Number(lowest);
    const bucket = lowest === null ? Number.MAX_SAFE_INTEGER : postingBucket(row);
    this.stmt.dropPostings!.run(bucket, row);
    this.stmt.dropHashedPostings!.run(bucket);
    this.stmt.dropPendingHashes!.run(bucket);
  }
}

/**
 * Deletes the oldest telemetry in bounded batches, from every signal's table (the signal
 * registry). Every call is one small transaction; the writer worker interleaves them with
 * ingestion.
 */
export class Retention {
  private readonly tables: { records: RecordsName | null; trimmer: RetentionTrimmer }[];
  /** Rows deleted from the `others` since the last `takeOthersDeleted()`. */
  private othersDeleted = 0;
  /** Where the next size pass starts looking, so that tables tied on time take turns. */
  private sizeTurn = 0;
  private readonly pageSize: Database.Statement;
  private readonly pageCount: Database.Statement;
  private readonly freePages: Database.Statement;

  /**
   * `others`: tables trimmed with the signals' but holding no signal's records (the forwarding
   * outbox): aged out alike, and in size trimming taken when their next row to go is the oldest.
   */
  constructor(
    private readonly db: Database.Database,
    readonly policy: RetentionPolicy,
    others: readonly RetentionTrimmer[] = [],
  ) {
    // Prepared once: the writer asks after every commit (and for the used bytes, after every
    // commit past the size limit), and `db.pragma` compiles its statement on every call.
    this.pageSize = db.prepare("PRAGMA page_size").pluck();
    this.pageCount = db.prepare("PRAGMA page_count").pluck();
    this.freePages = db.prepare("PRAGMA freelist_count").pluck();
    this.tables = [
      ...SIGNALS.map(({ records, retention: where }) => ({
        records,
        trimmer: "trimmer" in where ? where.trimmer(db, where.trimmedThrough) : new SignalTable(db, records, where),
      })),
      ...others.map((trimmer) => ({ records: null, trimmer })),
    ];
  }

  /** Rows the `others` lost since the last call (they are not any signal's records). */
  takeOthersDeleted(): number {
    const deleted = this.othersDeleted;
    this.othersDeleted = 0;
    return deleted;
  }

  private tally(result: TrimResult, records: RecordsName | null, deleted: number): void {
    if (records === null) this.othersDeleted += deleted;
    else result[records] = deleted;
  }

  /** Bytes in pages that hold data (free pages are reused before the file grows). */
  usedBytes(): number {
    return (Number(this.pageCount.get()) - Number(this.freePages.get())) * Number(this.pageSize.get());
  }

  fileBytes(): number {
    return Number(this.pageCount.get()) * Number(this.pageSize.get());
  }

  /**
   * Telemetry timed before this is past the age limit: trimmed, and refused on arrival. Never
   * before time 0, the earliest time OTLP's unsigned timestamps reach: a window reaching further
   * back keeps everything, and its cutoff stays a 64-bit integer SQLite can bind.
   */
  ageCutoffNs(nowNs: bigint): bigint {
    const cutoff = nowNs - BigInt(this.policy.maxAgeMs) * 1_000_000n;
    return cutoff > 0n ? cutoff : 0n;
  }

  /** One batch of age-based trimming. Returns what was deleted (zero when nothing is too old). */
  trimByAge(nowNs: bigint): TrimResult {
    const cutoff = this.ageCutoffNs(nowNs);
    return this.db.transaction(() => {
      const result = noRecords();
      for (const table of this.tables) {
        this.tally(result, table.records, table.trimmer.trimOlder(cutoff, this.policy.batchRows));
      }
      return result;
    })();
  }

  /** One batch of size-based trimming from the table whose next rows to go are oldest. */
  trimBySize(nowNs: bigint = BigInt(Date.now()) * 1_000_000n): TrimResult {
    const result = noRecords();
    if (this.usedBytes() <= this.policy.maxBytes) return result;
    const table = this.nextTable(nowNs);
    if (table === null) return result;
    return this.db.transaction(() => {
      this.tally(result, table.records, table.trimmer.trimOldest(this.policy.batchRows));
      return result;
    })();
  }

  /**
   * Hands up to `pages` free pages back to the filesystem when the file is over its cap (e.g.
   * after the cap was lowered); returns whether it is still over with free pages left. A chunk
   * at a time: each page moved goes through the write-ahead log, so freeing them all at once put
   * as much in the log as was freed (on a nearly full disk, more than it could hold). The caller
   * checkpoints between chunks. False too when a chunk freed none: a file rebuilt without
   * incremental auto_vacuum (by VACUUM or a dump) keeps its free pages, and its caller would
   * otherwise ask again for ever.
   */
  releaseFreePages(pages: number): boolean {
    if (!this.overCapWithFreePages()) return false;
    const before = Number(this.freePages.get());
    this.db.pragma(`incremental_vacuum(${Math.max(1, Math.floor(pages))})`);
    return Number(this.freePages.get()) < before && this.overCapWithFreePages();
  }

  private overCapWithFreePages(): boolean {
    return this.fileBytes() > this.policy.maxBytes && Number(this.freePages.get()) > 0;
  }

  /**
   * The table whose next batch to go (trimOldest's) is oldest: judged by what is deleted, not
   * by a table's oldest row, which a late arrival can make older than everything it would
   * delete for many batches. A time past now counts as now: a sender with a wrong clock would
   * otherwise make its table look newest, and every other table would go first. On a tie, the
   * tables take turns: records sent together with the same times would otherwise all go from
   * the first registered table before any other's.
   */
  private nextTable(nowNs: bigint): { records: RecordsName | null; trimmer: RetentionTrimmer } | null {
    let next: { index: number; ns: bigint } | null = null;
    for (let i = 0; i < this.tables.length; i++) {
      const index = (this.sizeTurn + i) % this.tables.length;
      const found = (this.tables[index] as (typeof this.tables)[number]).trimmer.nextOldest(this.policy.batchRows);
      const ns = found === undefined || found < nowNs ? found : nowNs;
      if (ns !== undefined && (next === null || ns < next.ns)) next = { index, ns };
    }
    if (next === null) return null;
    this.sizeTurn = next.index + 1;
    return this.tables[next.index] ?? null;
  }
}

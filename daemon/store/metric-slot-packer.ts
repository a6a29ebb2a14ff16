import type Database from "better-sqlite3";
import type { MetricKind } from "../otlp/records.js";
import { mergeRows, type RollupRow } from "./metric-rollup.js";
import { pushRowValues, ROLLUP_COLUMNS, rollupRowsStatement, rowFromValues } from "./metric-rollup-store.js";
import { PACK_ENTRY_SQL, PACK_STORED_COLUMNS, type PackEntry, packEntries } from "./metric-slot-packs.js";
import { FOLDED_WIDTHS_S, slotOf } from "./metric-slots.js";
import type { MultiRowStatement } from "./multi-row.js";

/** The width a packed slot is merged from: its rows are written every commit. */
const FOLDED_S: number = FOLDED_WIDTHS_S[0];

/**
 * The rollup widths whose closed slots are packed (metric-slot-packs.ts): the day view's, where
 * a query reads a slot of every series. Hour views read few enough rows as they are.
 */
export const PACKED_WIDTHS_S = [900] as const;

/**
 * A slot is packed once its metric's newest point is this far past the slot's end. Points of
 * a slot seldom arrive later than that (exporters send every 10 to 60 s); one that does is
 * still counted, at the cost of repacking its slot (below).
 */
export const PACK_GRACE_S = 300;

/**
 * The 60 s rows one commit merges into packed slots, all metrics together (at least one slot),
 * so the first pass over a long history (a store upgraded from version 12) is spread over
 * commits and no commit waits long on it. Repacks are not counted: they keep a pack true to
 * its rows, and merge only the series that changed.
 */
export const ROWS_PER_COMMIT = 16_000;

/**
 * How far past the collector's clock a point may move its metric's newest time. A sender
 * whose clock runs ahead would otherwise close slots other senders are still writing, and
 * every commit would then repack them.
 */
export const CLOCK_ALLOWANCE_NS = 60n * 1_000_000_000n;

const packedKey = (metricId: number, widthS: number): string => `${metricId}:${widthS}`;

/**
 * Keeps `metric_slot_packs` in step with `metric_rollups` from the writer's transaction:
 *
 * - **Packing.** At the end of a transaction, every slot of a packed width that ended
 *   PACK_GRACE_S before its metric's newest point (capped by the collector's clock) gets each
 *   series' row merged from its 60 s rows (metric-rollup.ts mergeRows) and is packed, oldest
 *   first, a few a commit, with no slot skipped: every slot up to a metric's newest pack is
 *   packed or has no 60 s rows. Readers rely on that to read packs (and the width's rows) up
 *   to the newest pack in their range, and 60 s rows after it.
 * - **Repacking.** A 60 s row written to a slot already packed (a late point's refold, a series
 *   that reports far behind its metric's others) merges that series' row again and repacks the
 *   slot from the width's rows, in the same transaction, so a reader never sees a pack that
 *   disagrees with the rows it was made from.
 */
export class MetricSlotPacker {
  /** Per metric and width: every slot up to this one is packed (or has no rows). */
  private through = new Map<string, number>();
  /** Newest point time per metric written in this transaction. */
  private readonly newest = new Map<number, bigint>();
  /** When the transaction's newest request arrived (ns; 0 when the caller does not say). */
  private clockNs = 0n;
  /** Series whose 60 s rows this transaction wrote, by metric, packed width and slot of that width. */
  private readonly written = new Map<number, Map<number, Map<number, Set<number>>>>();
  /** Each metric's kind, which merging its buckets needs. */
  private readonly kinds = new Map<number, MetricKind>();
  /** A slot's merged rows, many per statement. */
  private readonly inserts: MultiRowStatement;
  private readonly stmt: Record<
    "newestPack" | "firstRow" | "nextSlot" | "folded" | "seriesFolded" | "kind" | "clear" | "rows" | "put" | "drop",
    Database.Statement
  >;

  constructor(db: Database.Database) {
    this.stmt = {
      newestPack: db.prepare("SELECT max(slot) FROM metric_slot_packs WHERE metric_id = ? AND width_s = ?"),
      firstRow: db.prepare(`SELECT min(slot) FROM metric_rollups WHERE metric_id = ? AND width_s = ${FOLDED_S}`),
      nextSlot: db.prepare(
        `SELECT min(slot) FROM metric_rollups WHERE metric_id = ? AND width_s = ${FOLDED_S} AND slot >= ? AND slot < ?`,
      ),
      // In key order (slot, then series): no sort; grouped by series in pack().
      folded: db.prepare(
        `SELECT ${ROLLUP_COLUMNS.join(", ")} FROM metric_rollups
        WHERE metric_id = ? AND width_s = ${FOLDED_S} AND slot >= ? AND slot < ?`,
      ),
      // One series' rows of a slot, one key lookup per minute.
      seriesFolded: db.prepare(
        `SELECT ${ROLLUP_COLUMNS.join(", ")} FROM metric_rollups
        WHERE metric_id = ? AND width_s = ${FOLDED_S} AND series_id = ? AND slot IN (SELECT value FROM json_each(?))`,
      ),
      kind: db.prepare("SELECT kind FROM metrics WHERE id = ?"),
      clear: db.prepare("DELETE FROM metric_rollups WHERE metric_id = ? AND width_s = ? AND slot = ?"),
      rows: db.prepare(
        `SELECT ${PACK_ENTRY_SQL} FROM metric_rollups WHERE metric_id = ? AND width_s = ? AND slot = ? ORDER BY series_id`,
      ),
      put: db.prepare(
        `INSERT OR REPLACE INTO metric_slot_packs (metric_id, width_s, slot, ${PACK_STORED_COLUMNS.join(", ")})
        VALUES (@metric, @width, @slot, ${PACK_STORED_COLUMNS.map((c) => `@${c}`).join(", ")})`,
      ),
      drop: db.prepare("DELETE FROM metric_slot_packs WHERE metric_id = ? AND width_s = ? AND slot = ?"),
    };
    for (const name of ["newestPack", "firstRow", "nextSlot", "kind"] as const) {
      this.stmt[name].pluck().safeIntegers(false);
    }
    for (const name of ["folded", "seriesFolded", "rows"] as const) this.stmt[name].raw().safeIntegers(true);
    this.inserts = rollupRowsStatement(db);
  }

  /** A request of this transaction arrived at `receivedNs` (0: unknown, as in tests of old data). */
  noteClock(receivedNs: bigint): void {
    if (receivedNs > this.clockNs) this.clockNs = receivedNs;
  }

  /** A series of the metric has points up to `timeNs` in this transaction. */
  notePoint(metricId: number, timeNs: bigint): void {
    const held = this.newest.get(metricId);
    if (held === undefined || timeNs > held) this.newest.set(metricId, timeNs);
  }

  /** A series' 60 s row was written in this transaction: its rows of the packed widths change. */
  noteRow(metricId: number, widthS: number, slot: number, seriesId: number): void {
    let widths = this.written.get(metricId);
    if (widths === undefined) {
      widths = new Map();
      this.written.set(metricId, widths);
    }
    for (const packed of PACKED_WIDTHS_S) {
      let slots = widths.get(packed);
      if (slots === undefined) {
        slots = new Map();
        widths.set(packed, slots);
      }
      const at = Math.floor((slot * widthS) / packed);
      let series = slots.get(at);
      if (series === undefined) {
        series = new Set();
        slots.set(at, series);
      }
      series.add(seriesId);
    }
  }

  /** Repacks the packed slots this transaction wrote rows to, then packs the slots that closed. */
  flush(): void {
    for (const [metricId, widths] of this.written) {
      for (const [widthS, slots] of widths) {
        const through = this.packedThrough(metricId, widthS);
        for (const [slot, series] of slots) if (slot <= through) this.repack(metricId, widthS, slot, series);
      }
    }
    let budget = ROWS_PER_COMMIT;
    const clockLimit = this.clockNs > 0n ? this.clockNs + CLOCK_ALLOWANCE_NS : null;
    for (const [metricId, pointNs] of this.newest) {
      const newestNs = clockLimit !== null && pointNs > clockLimit ? clockLimit : pointNs;
      for (const widthS of PACKED_WIDTHS_S) {
        if (budget <= 0) break;
        const closed = slotOf(newestNs - BigInt(PACK_GRACE_S) * 1_000_000_000n, widthS) - 1;
        budget -= this.packThrough(metricId, widthS, closed, budget);
      }
    }
    this.clearTransaction();
  }

  /**
   * Packs the metric's slots of a width up to `slot`, oldest first, until `limit` 60 s rows
   * were merged (the rest on a later call). Returns how many 60 s rows were merged.
   */
  packThrough(metricId: number, widthS: number, slot: number, limit = Number.POSITIVE_INFINITY): number {
    const per = widthS / FOLDED_S;
    let from = this.packedThrough(metricId, widthS);
    let packed = 0;
    while (from < slot && packed < limit) {
      // The next slot with rows: one seek on the folded rows, whatever the gap.
      const row = this.stmt.nextSlot.get(metricId, Math.max(from + 1, -1e15) * per, (slot + 1) * per) as number | null;
      if (row === null) {
        from = slot;
        break;
      }
      const next = Math.floor(row / per);
      packed += this.pack(metricId, widthS, next);
      from = next;
    }
    this.through.set(packedKey(metricId, widthS), from);
    return packed;
  }

  /** The slot every slot up to which is packed: the newest pack, else the slot before the first row's. */
  private packedThrough(metricId: number, widthS: number): number {
    const key = packedKey(metricId, widthS);
    const held = this.through.get(key);
    if (held !== undefined) return held;
    const newest = this.stmt.newestPack.get(metricId, widthS) as number | null;
    const first = newest === null ? (this.stmt.firstRow.get(metricId) as number | null) : null;
    const through = newest ?? (first === null ? Number.MIN_SAFE_INTEGER : Math.floor((first * FOLDED_S) / widthS) - 1);
    this.through.set(key, through);
    return through;
  }

  /**
   * Merges each series' row of the slot from its 60 s rows (metric-rollup.ts mergeRows), writes
   * them as the slot's `metric_rollups` rows (replacing any a schema-12 writer left) and packs them.
   */
  private pack(metricId: number, widthS: number, slot: number): number {
    const per = widthS / FOLDED_S;
    const bySeries = new Map<number, RollupRow[]>();
    const folded = this.stmt.folded.all(metricId, slot * per, (slot + 1) * per) as unknown[][];
    for (const values of folded) {
      const seriesId = Number(values[3]);
      const rows = bySeries.get(seriesId);
      if (rows === undefined) bySeries.set(seriesId, [rowFromValues(values)]);
      else rows.push(rowFromValues(values));
    }
    this.stmt.clear.run(metricId, widthS, slot);
    if (bySeries.size === 0) {
      this.stmt.drop.run(metricId, widthS, slot);
      return 0;
    }
    const kind = this.kindOf(metricId);
    const entries: PackEntry[] = [];
    const values: unknown[] = [];
    for (const seriesId of [...bySeries.keys()].sort((a, b) => a - b)) {
      const row: unknown[] = [];
      pushRowValues(row, metricId, seriesId, mergeRows(kind, widthS, slot, bySeries.get(seriesId) as RollupRow[]));
      values.push(...row);
      // The row's values after its metric, width and slot are a pack entry's, in order.
      entries.push(row.slice(3) as unknown as PackEntry);
    }
    this.inserts.run(values);
    this.stmt.put.run({ metric: metricId, width: widthS, slot, ...packEntries(entries) });
    return folded.length;
  }

  /** Merges again the rows of the series whose 60 s rows changed in a packed slot, and repacks it. */
  private repack(metricId: number, widthS: number, slot: number, seriesIds: ReadonlySet<number>): void {
    const per = widthS / FOLDED_S;
    const minutes = JSON.stringify(Array.from({ length: per }, (_, i) => slot * per + i));
    const kind = this.kindOf(metricId);
    const values: unknown[] = [];
    for (const seriesId of seriesIds) {
      const rows = (this.stmt.seriesFolded.all(metricId, seriesId, minutes) as unknown[][])
        .map(rowFromValues)
        .sort((a, b) => a.slot - b.slot);
      if (rows.length > 0) pushRowValues(values, metricId, seriesId, mergeRows(kind, widthS, slot, rows));
    }
    if (values.length > 0) this.inserts.run(values);
    const rows = this.stmt.rows.all(metricId, widthS, slot) as PackEntry[];
    if (rows.length === 0) this.stmt.drop.run(metricId, widthS, slot);
    else this.stmt.put.run({ metric: metricId, width: widthS, slot, ...packEntries(rows) });
  }

  /** A metric's kind, which decides how its buckets merge. */
  private kindOf(metricId: number): MetricKind {
    let kind = this.kinds.get(metricId);
    if (kind === undefined) {
      kind = this.stmt.kind.get(metricId) as MetricKind;
      this.kinds.set(metricId, kind);
    }
    return kind;
  }

  clearTransaction(): void {
    this.newest.clear();
    this.written.clear();
    this.clockNs = 0n;
  }

  /** Forgets what a rollback or retention may have made wrong. */
  forget(): void {
    this.clearTransaction();
    this.through = new Map();
    this.kinds.clear();
  }
}

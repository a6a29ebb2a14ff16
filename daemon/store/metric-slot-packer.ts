import type Database from "better-sqlite3";
import { PACK_ENTRY_SQL, PACK_STORED_COLUMNS, type PackEntry, packEntries } from "./metric-slot-packs.js";
import { slotOf } from "./metric-slots.js";

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

const PACKED = new Set<number>(PACKED_WIDTHS_S);

/**
 * Slots packed in one commit, all metrics together, so the first pass over a long history (a
 * store upgraded from version 12) is spread over commits. Repacks are not counted: they keep
 * a pack true to its rows.
 */
const SLOTS_PER_COMMIT = 8;

/**
 * How far past the collector's clock a point may move its metric's newest time. A sender
 * whose clock runs ahead would otherwise close slots other senders are still writing, and
 * every commit would then repack them.
 */
const CLOCK_ALLOWANCE_NS = 60n * 1_000_000_000n;

const packedKey = (metricId: number, widthS: number): string => `${metricId}:${widthS}`;

/**
 * Keeps `metric_slot_packs` in step with `metric_rollups` from the writer's transaction:
 *
 * - **Packing.** At the end of a transaction, every slot of a packed width that ended
 *   PACK_GRACE_S before its metric's newest point (capped by the collector's clock) is packed
 *   from its rows, oldest first, a few a commit, with no slot skipped: every slot up to a metric's newest pack is packed or has no rows. Readers
 *   rely on that to read packs up to the newest one in their range and rows after it.
 * - **Repacking.** A row written to a slot already packed (a late point's refold, a series that
 *   reports far behind its metric's others) repacks that slot in the same transaction, so a
 *   reader never sees a pack that disagrees with the rows it was made from.
 *
 * The rows are kept: they are what the writer reads back, what queries of other steps read,
 * and what a pack is made from.
 */
export class MetricSlotPacker {
  /** Per metric and width: every slot up to this one is packed (or has no rows). */
  private through = new Map<string, number>();
  /** Newest point time per metric written in this transaction. */
  private readonly newest = new Map<number, bigint>();
  /** When the transaction's newest request arrived (ns; 0 when the caller does not say). */
  private clockNs = 0n;
  /** Slots of packed widths whose rows this transaction wrote, by metric and width. */
  private readonly written = new Map<number, Map<number, Set<number>>>();
  private readonly stmt: Record<"newestPack" | "firstRow" | "nextSlot" | "rows" | "put" | "drop", Database.Statement>;

  constructor(db: Database.Database) {
    this.stmt = {
      newestPack: db.prepare("SELECT max(slot) FROM metric_slot_packs WHERE metric_id = ? AND width_s = ?"),
      firstRow: db.prepare("SELECT min(slot) FROM metric_rollups WHERE metric_id = ? AND width_s = ?"),
      nextSlot: db.prepare(
        "SELECT min(slot) FROM metric_rollups WHERE metric_id = ? AND width_s = ? AND slot > ? AND slot <= ?",
      ),
      rows: db.prepare(
        `SELECT ${PACK_ENTRY_SQL} FROM metric_rollups WHERE metric_id = ? AND width_s = ? AND slot = ? ORDER BY series_id`,
      ),
      put: db.prepare(
        `INSERT OR REPLACE INTO metric_slot_packs (metric_id, width_s, slot, ${PACK_STORED_COLUMNS.join(", ")})
        VALUES (@metric, @width, @slot, ${PACK_STORED_COLUMNS.map((c) => `@${c}`).join(", ")})`,
      ),
      drop: db.prepare("DELETE FROM metric_slot_packs WHERE metric_id = ? AND width_s = ? AND slot = ?"),
    };
    for (const name of ["newestPack", "firstRow", "nextSlot"] as const) this.stmt[name].pluck().safeIntegers(false);
    this.stmt.rows.raw().safeIntegers(true);
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

  /** A `metric_rollups` row was written in this transaction. */
  noteRow(metricId: number, widthS: number, slot: number): void {
    if (!PACKED.has(widthS)) return;
    let widths = this.written.get(metricId);
    if (widths === undefined) {
      widths = new Map();
      this.written.set(metricId, widths);
    }
    let slots = widths.get(widthS);
    if (slots === undefined) {
      slots = new Set();
      widths.set(widthS, slots);
    }
    slots.add(slot);
  }

  /** Repacks the packed slots this transaction wrote rows to, then packs the slots that closed. */
  flush(): void {
    for (const [metricId, widths] of this.written) {
      for (const [widthS, slots] of widths) {
        const through = this.packedThrough(metricId, widthS);
        for (const slot of slots) if (slot <= through) this.pack(metricId, widthS, slot);
      }
    }
    let budget = SLOTS_PER_COMMIT;
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
   * Packs the metric's slots of a width up to `slot`, oldest first, at most `limit` slots with
   * rows (the rest on a later call). Returns how many were packed.
   */
  packThrough(metricId: number, widthS: number, slot: number, limit = Number.POSITIVE_INFINITY): number {
    let from = this.packedThrough(metricId, widthS);
    let packed = 0;
    while (from < slot && packed < limit) {
      const next = this.stmt.nextSlot.get(metricId, widthS, from, slot) as number | null;
      if (next === null) {
        from = slot;
        break;
      }
      this.pack(metricId, widthS, next);
      packed++;
      from = next;
    }
    this.through.set(packedKey(metricId, widthS), from);
    return packed;
  }

  /** The slot every slot up to which is packed: the newest pack, else the slot before the first row. */
  private packedThrough(metricId: number, widthS: number): number {
    const key = packedKey(metricId, widthS);
    const held = this.through.get(key);
    if (held !== undefined) return held;
    const newest = this.stmt.newestPack.get(metricId, widthS) as number | null;
    const first = newest === null ? (this.stmt.firstRow.get(metricId, widthS) as number | null) : null;
    const through = newest ?? (first === null ? Number.MIN_SAFE_INTEGER : first - 1);
    this.through.set(key, through);
    return through;
  }

  private pack(metricId: number, widthS: number, slot: number): void {
    const rows = this.stmt.rows.all(metricId, widthS, slot) as PackEntry[];
    if (rows.length === 0) this.stmt.drop.run(metricId, widthS, slot);
    else this.stmt.put.run({ metric: metricId, width: widthS, slot, ...packEntries(rows) });
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
  }
}

import type Database from "better-sqlite3";
import type { RetentionTrimmer } from "../signals/signal-module.js";
import { recordedSql, storedSeriesKind } from "./metric-rollup.js";
import { MetricRollupStore } from "./metric-rollup-store.js";
import { MetricSlotPacker, PACKED_WIDTHS_S } from "./metric-slot-packer.js";
import { FOLDED_WIDTHS_S, METRIC_ROLLUP_WIDTHS_S, slotOf } from "./metric-slots.js";

const PACKED = new Set<number>(PACKED_WIDTHS_S);
const FOLDED_S: number = FOLDED_WIDTHS_S[0];

/**
 * Passes that deleted metric rows in this thread. Retention and the writer share the writer
 * thread; the writer forgets its series ids and states when this moves (metric-writer.ts).
 */
let deletions = 0;
/** The latest cutoff of those passes: they deleted points and slots before it only. */
let deletedBefore = 0n;

/** Per store, the latest cutoff of any pass, by age or size, whether or not it deleted anything. */
const passCutoffs = new WeakMap<Database.Database, bigint>();

/**
 * What the writer may hold of a series, points not in `metric_points` yet: undefined, none; a
 * time, its oldest; "any": points of any time (in the journal only, until the writer replays it).
 */
export type HeldPointsFrom = bigint | "any" | undefined;

/** Per store, what its metric writer holds of a series (metric-writer.ts registers it). */
const heldSeries = new WeakMap<Database.Database, (seriesId: number) => HeldPointsFrom>();

/** Tells retention of `db` which series have points only the writer holds so far, and from when. */
export function registerHeldSeries(db: Database.Database, holds: (seriesId: number) => HeldPointsFrom): void {
  heldSeries.set(db, holds);
}

export function metricDeletions(): number {
  return deletions;
}

/** Every point retention deleted in this thread was older than this (ns; 0: none yet). */
export function metricDeletedBefore(): bigint {
  return deletedBefore;
}

/**
 * Points older than this are retention's to delete (ns; 0: no pass yet): the writer writes those
 * it holds, which a pass cannot see, for the next pass (metric-writer.ts).
 */
export function metricPassCutoff(db: Database.Database): bigint {
  return passCutoffs.get(db) ?? 0n;
}

/** Size trimming deletes the points of this window from the oldest on, per pass. */
const SIZE_STEP_NS = 60n * 1_000_000_000n;
const NS_PER_S = 1_000_000_000n;

interface DeletedPoint {
  time_ns: bigint;
  /** 1n when the point had a value (recordedSql), 0n when not. */
  recorded: bigint;
}

interface OldSeries {
  id: number;
  metric_id: number;
}

/**
 * Time retention of metrics: points before the cutoff (per series, along the points' key),
 * rollup slots (rows and packs) that end at or before both it and the oldest point kept, series left without
 * points with their attribute and newest-time rows, and metrics left without series with all their slots; the counters
 * `points` and `series` follow.
 */
type Statement =
  | "oldSeries"
  | "deletePoints"
  | "firstPoint"
  | "setFirst"
  | "notWhole"
  | "deleteSeries"
  | "deleteLast"
  | "deleteAttributes"
  | "deleteMetric"
  | "metricIds"
  | "dropRollups"
  | "dropPacks"
  | "dropAllRollups"
  | "dropAllPacks"
  | "counter"
  | "trimmedThrough"
  | "oldest"
  | "seriesKind"
  | "staleRows"
  | "deleteRow";

/** A series some of whose points a pass deleted, and the time of its oldest point kept. */
interface TrimmedSeries {
  id: number;
  metricId: number;
  /** Its oldest and newest point the pass deleted. */
  deletedFrom: bigint;
  deletedTo: bigint;
  /** Null: the pass deleted the series, its every point gone. */
  firstNs: bigint | null;
}

class MetricTrimmer implements RetentionTrimmer {
  private readonly stmt: Record<Statement, Database.Statement>;

  constructor(
    private readonly db: Database.Database,
    private readonly trimmedThrough: string,
  ) {
    this.stmt = {
      oldSeries: db.prepare("SELECT id, metric_id FROM metric_series WHERE first_ns < ? ORDER BY first_ns LIMIT ?"),
      deletePoints: db.prepare(
        `DELETE FROM metric_points WHERE series_id = ? AND time_ns IN
           (SELECT time_ns FROM metric_points WHERE series_id = ? AND time_ns < ? ORDER BY time_ns LIMIT ?)
         RETURNING time_ns, ${recordedSql("")} AS recorded`,
      ),
      firstPoint: db.prepare("SELECT time_ns FROM metric_points WHERE series_id = ? ORDER BY time_ns LIMIT 1"),
      setFirst: db.prepare("UPDATE metric_series SET first_ns = ? WHERE id = ?"),
      // Once a point with a value is deleted, the first point kept is not the series' first:
      // whatever it counted accrued over the points deleted too, so it no longer counts whole
      // (metric-rollup.ts firstCountsWhole). Points without a value were no baseline.
      notWhole: db.prepare("UPDATE metric_series SET first_whole = 0 WHERE id = ? AND first_whole <> 0"),
      deleteSeries: db.prepare("DELETE FROM metric_series WHERE id = ?"),
      deleteLast: db.prepare("DELETE FROM metric_series_last WHERE series_id = ?"),
      deleteAttributes: db.prepare("DELETE FROM metric_series_attributes WHERE metric_id = ? AND series_id = ?"),
      deleteMetric: db.prepare(
        "DELETE FROM metrics WHERE id = ? AND NOT EXISTS (SELECT 1 FROM metric_series WHERE metric_id = ?)",
      ),
      metricIds: db.prepare("SELECT id FROM metrics"),
      dropRollups: db.prepare("DELETE FROM metric_rollups WHERE metric_id = ? AND width_s = ? AND slot <= ?"),
      dropPacks: db.prepare("DELETE FROM metric_slot_packs WHERE metric_id = ? AND width_s = ? AND slot <= ?"),
      dropAllRollups: db.prepare("DELETE FROM metric_rollups WHERE metric_id = ?"),
      dropAllPacks: db.prepare("DELETE FROM metric_slot_packs WHERE metric_id = ?"),
      counter: db.prepare("UPDATE counters SET value = value - ? WHERE name = ?"),
      trimmedThrough: db.prepare(
        "INSERT INTO counters (name, value) VALUES (?, ?) ON CONFLICT (name) DO UPDATE SET value = max(value, excluded.value)",
      ),
      oldest: db.prepare("SELECT min(first_ns) FROM metric_series"),
      seriesKind: db.prepare(
        `SELECT s.first_whole, m.kind, m.temporality, m.monotonic FROM metric_series s JOIN metrics m ON m.id = s.metric_id
        WHERE s.id = ?`,
      ),
      staleRows: db.prepare(
        "SELECT slot, series_id FROM metric_rollups WHERE metric_id = ? AND width_s = ? AND slot BETWEEN ? AND ?",
      ),
      deleteRow: db.prepare(
        "DELETE FROM metric_rollups WHERE metric_id = ? AND width_s = ? AND slot = ? AND series_id = ?",
      ),
    };
    for (const name of ["oldSeries", "deleteMetric", "metricIds", "deleteAttributes"] as const) {
      this.stmt[name].safeIntegers(false);
    }
    for (const name of ["firstPoint", "metricIds", "oldest"] as const) this.stmt[name].pluck();
    this.stmt.staleRows.raw().safeIntegers(false);
    this.stmt.seriesKind.safeIntegers(false);
  }

  trimOlder(cutoffNs: bigint, limit: number): number {
    // Even a pass that deletes nothing may move a held series' first time (below).
    if (cutoffNs > metricPassCutoff(this.db)) passCutoffs.set(this.db, cutoffNs);
    const s = this.stmt;
    let deleted = 0;
    let latest = 0n;
    let seriesGone = 0;
    const emptied = new Set<number>();
    const trimmed: TrimmedSeries[] = [];
    for (const series of s.oldSeries.all(cutoffNs, limit) as OldSeries[]) {
      if (deleted >= limit) break;
      const gone = s.deletePoints.all(series.id, series.id, cutoffNs, limit - deleted) as DeletedPoint[];
      deleted += gone.length;
      for (const { time_ns } of gone) if (time_ns > latest) latest = time_ns;
      if (gone.some((point) => point.recorded !== 0n)) s.notWhole.run(series.id);
      const first = s.firstPoint.get(series.id) as bigint | undefined;
      // Deleted oldest first: the first and the last returned bound what went.
      const went = (firstNs: bigint | null): TrimmedSeries => ({
        id: series.id,
        metricId: series.metric_id,
        deletedFrom: (gone[0] as DeletedPoint).time_ns,
        deletedTo: (gone[gone.length - 1] as DeletedPoint).time_ns,
        firstNs,
      });
      if (first !== undefined) {
        s.setFirst.run(first, series.id);
        if (gone.length > 0) trimmed.push(went(first));
        continue;
      }
      // Its newer points are held by the writer (metric-writer.ts): it is kept, its first time
      // moved to the cutoff (none of its stored points is older), so that size trimming, which
      // starts from the oldest first time, goes on past it. Never past a point it holds, which
      // the writer writes for the next pass: a replay of the journal (after a stop or a
      // rollback) leaves out the points before their series' first time, as retention's. Points
      // in the journal only, of times unknown here, are newer than every point stored of their
      // series (a late point has the writer write what its series holds), so past those deleted.
      const held = heldSeries.get(this.db)?.(series.id);
      if (held !== undefined) {
        const newestGone = gone.at(-1)?.time_ns;
        const from = held !== "any" ? held : newestGone === undefined ? undefined : newestGone + 1n;
        if (from !== undefined) s.setFirst.run(from < cutoffNs ? from : cutoffNs, series.id);
        continue;
      }
      // Its rows of the slots the cutoff falls inside go with it (refoldFirstSlots), or counts
      // read from the rollups (the metrics list's) would count its deleted points.
      if (gone.length > 0) trimmed.push(went(null));
      s.deleteSeries.run(series.id);
      s.deleteLast.run(series.id);
      s.deleteAttributes.run(series.metric_id, series.id);
      emptied.add(series.metric_id);
      seriesGone++;
    }
    if (deleted === 0 && seriesGone === 0) return 0;
    // A pass cut short by `limit` leaves points before the cutoff: their slots stay until they
    // go, or rollup answers would show gaps where points remain. first_ns is each series'
    // oldest point, so the least of them is the oldest point kept.
    const keptFrom = this.oldest();
    const dropBefore = keptFrom !== undefined && keptFrom < cutoffNs ? keptFrom : cutoffNs;
    for (const metricId of s.metricIds.all() as number[]) {
      for (const width of METRIC_ROLLUP_WIDTHS_S) {
        // A slot goes once it ends at or before that time: (slot + 1) * width <= dropBefore.
        const last = dropBefore / (BigInt(width) * NS_PER_S) - 1n;
        s.dropRollups.run(metricId, width, last);
        if (PACKED.has(width)) s.dropPacks.run(metricId, width, last);
      }
    }
    this.refoldFirstSlots(trimmed);
    for (const metricId of emptied) {
      if (s.deleteMetric.run(metricId, metricId).changes === 0) continue;
      // Its slots after the cutoff too: no series is left to read them, and later passes
      // visit only the metrics that exist, so nothing else would ever delete them.
      s.dropAllRollups.run(metricId);
      s.dropAllPacks.run(metricId);
    }
    s.counter.run(deleted, "points");
    s.counter.run(seriesGone, "series");
    if (latest > 0n) s.trimmedThrough.run(this.trimmedThrough, latest);
    deletions++;
    if (cutoffNs > deletedBefore) deletedBefore = cutoffNs;
    return deleted;
  }

  /**
   * The rollups of each series a pass deleted points of, from its oldest point kept on: its rows
   * of the slots its deleted points were in go (a series the pass deleted: all of them, and
   * nothing is refolded), that point's minute's too, and that minute is
   * refolded from the points kept, so the point is the baseline it is on the raw path
   * (first_whole cleared) instead of counting its increase over a deleted point, and the deleted
   * points' increases in its minute go (a minute whose kept points have no value keeps no row).
   * Packs of the 900 s slots that changed are made again from their rows
   * (metric-slot-packer.ts).
   */
  private refoldFirstSlots(trimmed: readonly TrimmedSeries[]): void {
    if (trimmed.length === 0) return;
    const s = this.stmt;
    const packer = new MetricSlotPacker(this.db);
    const rollups = new MetricRollupStore(this.db, (metricId, widthS, slot, seriesId) =>
      packer.noteRow(metricId, widthS, slot, seriesId),
    );
    const byMetric = new Map<number, TrimmedSeries[]>();
    for (const series of trimmed) {
      const ofMetric = byMetric.get(series.metricId);
      if (ofMetric === undefined) byMetric.set(series.metricId, [series]);
      else ofMetric.push(series);
    }
    // Per metric and width, one scan of the slots its series' deleted points were in (a range
    // of every series' rows: one per series would read it once a series).
    for (const [metricId, ofMetric] of byMetric) {
      const byId = new Map(ofMetric.map((series) => [series.id, series]));
      for (const width of METRIC_ROLLUP_WIDTHS_S) {
        let from = Number.POSITIVE_INFINITY;
        let to = Number.NEGATIVE_INFINITY;
        for (const series of ofMetric) {
          from = Math.min(from, slotOf(series.deletedFrom, width));
          to = Math.max(to, slotOf(series.deletedTo, width));
        }
        for (const [slot, seriesId] of s.staleRows.all(metricId, width, from, to) as [number, number][]) {
          const series = byId.get(seriesId);
          if (series === undefined || slot < slotOf(series.deletedFrom, width)) continue;
          // The first kept point's minute is written again below; its 900 s slot merged again.
          if (series.firstNs !== null && slot >= slotOf(series.firstNs, width)) continue;
          this.dropRow(packer, metricId, width, slot, seriesId);
        }
      }
    }
    for (const series of trimmed) {
      if (series.firstNs === null) continue;
      this.dropRow(packer, series.metricId, FOLDED_S, slotOf(series.firstNs, FOLDED_S), series.id);
      const row = s.seriesKind.get(series.id) as Parameters<typeof storedSeriesKind>[0] | undefined;
      if (row === undefined) continue;
      rollups.recompute(series.metricId, series.id, storedSeriesKind(row), series.firstNs);
    }
    packer.flush();
  }

  /** Deletes a series' row of a slot; its 900 s slot, where packed, is made again at the packer's flush. */
  private dropRow(packer: MetricSlotPacker, metricId: number, width: number, slot: number, seriesId: number): void {
    this.stmt.deleteRow.run(metricId, width, slot, seriesId);
    packer.noteRow(metricId, FOLDED_S, Math.floor((slot * width) / FOLDED_S), seriesId);
  }

  trimOldest(limit: number): number {
    const oldest = this.oldest();
    return oldest === undefined ? 0 : this.trimOlder(oldest + SIZE_STEP_NS, limit);
  }

  oldest(): bigint | undefined {
    return (this.stmt.oldest.get() as bigint | null) ?? undefined;
  }

  /** Size trimming deletes points by time, from the oldest series' first on. */
  nextOldest(): bigint | undefined {
    return this.oldest();
  }
}

export function metricTrimmer(db: Database.Database, trimmedThrough: string): RetentionTrimmer {
  return new MetricTrimmer(db, trimmedThrough);
}

import type Database from "better-sqlite3";
import type { MetricBatch, MetricPointRecord } from "../otlp/records.js";
import type { ResolvedResource } from "./dictionaries.js";
import { HeldPoints } from "./metric-held-points.js";
import { HeldSeries } from "./metric-held-series.js";
import { exemplarTraceIds, type PointDetail, pointDetailOf } from "./metric-point-detail.js";
import {
  JOURNAL_POINT_WIDTH,
  type JournalRefs,
  packJournalRecords,
  unpackJournalPoints,
  unpackJournalRefs,
} from "./metric-point-journal.js";
import { metricDeletedBefore, metricDeletions, metricPassCutoff, registerHeldSeries } from "./metric-retention.js";
import {
  addToRow,
  emptyRow,
  firstCountsWhole,
  pointIncrease,
  type RollupPoint,
  type RollupRow,
  recorded,
  type SeriesKind,
  storedSeriesKind,
} from "./metric-rollup.js";
import { MetricRollupStore } from "./metric-rollup-store.js";
import { MetricSeriesResolver, type ResolvedSeries } from "./metric-series.js";
import { CLOCK_ALLOWANCE_NS, MetricSlotPacker } from "./metric-slot-packer.js";
import { FOLDED_WIDTHS_S, slotOf } from "./metric-slots.js";
import { MultiRowStatement } from "./multi-row.js";
import type { RecordWriter, SharedWriteState } from "./record-writer.js";

const POINT_COLUMNS =
  "metric_points (series_id, time_ns, start_ns, flags, value, count, sum, min, max, detail, exemplars)";
const POINT_WIDTH = 11;
const NS_PER_S = 1_000_000_000n;
/** Series whose state is remembered; past this the memo starts over (a miss reads two rows back). */
const STATES_KEPT = 200_000;
/** The width whose slots a series' held rows are released by: its rows of wider widths go with them. */
const HELD_WIDTH_S: number = FOLDED_WIDTHS_S[0];
/**
 * A held row is written once its minute ended this long before the transaction's newest point
 * (capped by the clock, as the packer caps it): so a series exporting on time is held for its
 * open minute and the one before, and every row of a slot the packer closes (PACK_GRACE_S after
 * its end) was written before it is packed.
 */
const HELD_MINUTES_BEHIND = 1;
/**
 * A series that moves on to a later minute writes its row of the minute it leaves, and its
 * points only every this many minutes: each commit's points of a series rewrite that series'
 * newest `metric_points` page, so a page written per ten minutes of a series' points, not per
 * minute (docs/metrics-store.md, "Points held for ten minutes"). Which minute is a series' own
 * (its id) so that a minute's commits write the points of a tenth of the series, not all at once.
 * A series writes every point it holds whenever its row is written for any other reason too.
 */
export const POINT_HOLD_MINUTES = 10;
/**
 * Past this many points held in all, a series writes its points with every minute it leaves,
 * as if POINT_HOLD_MINUTES were 1: what the writer holds stays within this and a minute of
 * every series' points (per point its offset, and its request's journal bytes, kept while any
 * point of the request is held), and so does what a reader's first query writes.
 */
export const MAX_HELD_POINTS = 262_144;
/**
 * Present in `meta` while the writer may hold rows: an obsd that stopped without writing them
 * (killed, or its machine stopped) left the newest minute of some series unwritten, and the next
 * writer refolds them from the stored points before anything else.
 */
export const HELD_META_KEY = "metric_rows_held";

/** What the writer remembers of a series: its newest point and its rows of that point's slots. */
interface SeriesState {
  /** Its newest point that rollups fold (`recorded`): the next point's increase starts from it. */
  last: RollupPoint | null;
  /** Its newest point's time, recorded or not: a point at or before it is late or a repeat. */
  newestNs: bigint | null;
  rows: Map<number, RollupRow>;
  /** While held: its points not yet in `metric_points`. */
  points: HeldPoints;
  /** The journal row holding the first of them (0: none held). */
  journalId: number;
}

/** A series whose newest rows and time are held unwritten (metric-held-series.ts). */
interface HeldEntry {
  series: ResolvedSeries;
  state: SeriesState;
}

interface PendingRow {
  metricId: number;
  seriesId: number;
  row: RollupRow;
}

/** A stored point that arrived after a newer one of its series: its slots are refolded at flush. */
interface LatePoint {
  series: ResolvedSeries;
  timeNs: bigint;
}

/**
 * A point's detail as the store holds it (its JSON), so a point folded as it arrives and one
 * read back agree: JSON keeps an infinite or NaN number as null, which an explicit bound can
 * be, and a bound that reads back otherwise than it was folded is new bounds (a reset). Only a
 * histogram's bounds and counts are compared; only those are checked, and parsed back when one
 * is not finite.
 */
function asStored(detail: PointDetail | null, text: string | null): PointDetail | null {
  if (detail === null || text === null || !("bounds" in detail)) return detail;
  const finite = detail.bounds.every(Number.isFinite) && detail.counts.every(Number.isFinite);
  return finite ? detail : (JSON.parse(text) as PointDetail);
}

/** NaN as SQLite stores it (NULL), so a point folded as it arrives and one read back agree. */
const stored = (value: number | null): number | null => (value === null || Number.isNaN(value) ? null : value);

function rollupPointOf(point: MetricPointRecord, detail: ReturnType<typeof pointDetailOf>): RollupPoint {
  return {
    timeNs: point.timeNs,
    startNs: point.startNs,
    value: stored(point.value),
    count: point.count,
    sum: stored(point.sum),
    min: stored(point.min),
    max: stored(point.max),
    detail,
    traceIds: exemplarTraceIds(point.exemplars),
    flags: point.flags,
  };
}

/** A point's `metric_points` values, in POINT_COLUMNS order. */
function pointRow(seriesId: number, point: MetricPointRecord, detailText: string | null): unknown[] {
  return [
    seriesId,
    point.timeNs,
    point.startNs,
    point.flags,
    point.value,
    point.count,
    point.sum,
    point.min,
    point.max,
    detailText,
    point.exemplars,
  ];
}

/**
 * Writes metric points: identities and series once (metric-series.ts), the points (a resent
 * point is stored once: the key is its series and time), the series' time extents, the counters
 * `points` and `series`, and the per-series rollups (metric-rollup.ts).
 *
 * A point newer than its series' newest is folded into the rows the writer holds for the
 * series (read back from the store once after a restart). An older one is stored and its slots
 * are refolded from the stored points at flush, so the rollups are the same whatever order
 * points arrive in.
 *
 * A series' rows of its newest minute and its newest time are held unwritten across
 * transactions (metric-held-series.ts) and written at the flush of the transaction in which
 * the series moves on to a later minute, its minute ends (HELD_MINUTES_BEHIND), a point of it
 * arrives late, or `releaseHeld` was called: before a reader reads metrics (the query
 * service's caller asks the writer thread first) and at close. Its points are held longer,
 * written every POINT_HOLD_MINUTES (or with its row when that is written for any other reason
 * than moving on), and journaled in the transaction that acknowledges them, so an obsd that
 * stops without writing what it held loses nothing: the next writer replays the journal and
 * refolds those minutes from the points (HELD_META_KEY).
 */
export class MetricWriter implements RecordWriter {
  private readonly db: Database.Database;
  private readonly resolver: MetricSeriesResolver;
  private readonly rollups: MetricRollupStore;
  private readonly packer: MetricSlotPacker;
  private readonly pointsInsert: MultiRowStatement;
  private readonly journal: Record<"append" | "trimThrough" | "clear" | "rows" | "seriesFirst", Database.Statement>;
  /** The oldest held minute when the journal was last trimmed (null: none held; undefined: not yet). */
  private journalTrimmedAt: number | null | undefined = undefined;
  /**
   * The newest journal row at the first trim in each of the last POINT_HOLD_MINUTES + 2 minutes
   * (of the newest point, capped by the clock), oldest first: a series still holding a point
   * from before the first was held longer than any series that reports (trimJournal). Per
   * minute, not per trim: the oldest held minute goes back and forth while an exporter runs
   * behind the others; and not by the held minutes, which a series dated ahead would set.
   */
  private journalMarks: number[] = unmarkedJournal();
  /** The minute (of the newest point, capped by the clock) the latest mark was taken in. */
  private journalMarkedMinute = Number.NEGATIVE_INFINITY;
  /** The minute of this transaction's newest in-order point, capped by the clock (flush). */
  private currentMinute = Number.NEGATIVE_INFINITY;
  /** The newest journal row this writer appended. */
  private journalNewest = 0;
  /** Whether held points may be in the journal only (after a stop or a rollback): replayed before refolds. */
  private replayPending = false;
  /** Points held by every series, in all (MAX_HELD_POINTS). */
  private heldPoints = 0;
  /** Where the held points released in this transaction are, written to `metric_points` at flush. */
  private releasedPoints: JournalRefs = [];
  /** One chunk of released points' values, refilled per chunk (writeReleasedPoints). */
  private readonly releasedChunk: unknown[] = [];
  private readonly pointInsert: Database.Statement;
  private readonly lastUpdate: Database.Statement;
  private readonly firstUpdate: Database.Statement;
  private readonly firstWholeUpdate: Database.Statement;
  /** The start of a series' stored first point (its first time not yet moved by this transaction). */
  private readonly firstStart: Database.Statement;
  private readonly heldMark: Record<"set" | "clear", Database.Statement>;
  private readonly markStatement: Database.Statement;
  private readonly recoverable: Record<"one" | "all", Database.Statement>;
  private states = new Map<number, SeriesState>();
  /** Series whose rows or newest time are not written yet; kept when the memo starts over. */
  private readonly held = new HeldSeries<HeldEntry>();
  /** Whether HELD_META_KEY is in the store (as of the last commit this writer made). */
  private heldMarked: boolean;
  /**
   * Series whose newest minute may be stored without some of its points (what a writer held
   * when it stopped, or what a rollback or retention made this one forget), refolded from the
   * stored points at the start of the next transaction; "all" after an obsd that stopped holding.
   */
  private recovery: Recovery = null;
  /** What `recover` took from `recovery` in this transaction: put back if it rolls back. */
  private recovering: Recovery = null;
  /** Series this transaction released from `held`: refolded instead if it rolls back. */
  private readonly releasedIds: number[] = [];
  /** Series with an in-order point in this transaction (the packer hears their newest times). */
  private readonly touched = new Map<number, HeldEntry>();
  /** Rows a series moved on from to a later slot in this transaction. */
  private readonly closed: PendingRow[] = [];
  /** Newest times (`[id,ns]` JSON) of the series released in this transaction, written at flush. */
  private readonly lasts: string[] = [];
  private readonly late: LatePoint[] = [];
  /** The newest in-order point time of this transaction, and its newest request's arrival. */
  private newestNs = 0n;
  private clockNs = 0n;
  /**
   * Per series, the oldest point of this transaction that may be older than its stored first
   * time: a late point, or the first point this writer saw of it (in-order points after that
   * are newer than the series' newest, so they cannot move its first time).
   */
  private readonly firstTimes = new Map<number, { timeNs: bigint; startNs?: bigint }>();
  /** Retention's deletion count when the memos were last trusted. */
  private deletionsSeen = metricDeletions();
  /** Retention's cutoff when held points older than it were last written for it. */
  private cutoffSeen: bigint;

  constructor(
    db: Database.Database,
    private readonly shared: SharedWriteState,
  ) {
    this.db = db;
    this.cutoffSeen = metricPassCutoff(db);
    this.resolver = new MetricSeriesResolver(db, shared);
    this.packer = new MetricSlotPacker(db);
    this.rollups = new MetricRollupStore(db, (metricId, widthS, slot, seriesId) =>
      this.packer.noteRow(metricId, widthS, slot, seriesId),
    );
    this.pointsInsert = new MultiRowStatement(db, POINT_COLUMNS, POINT_WIDTH, "ON CONFLICT DO NOTHING", 256, false);
    this.journal = {
      append: db.prepare("INSERT INTO metric_point_journal (points) VALUES (?)"),
      trimThrough: db.prepare("DELETE FROM metric_point_journal WHERE id <= ?"),
      clear: db.prepare("DELETE FROM metric_point_journal"),
      rows: db.prepare("SELECT id, points FROM metric_point_journal WHERE id > ? ORDER BY id LIMIT 64"),
      seriesFirst: db.prepare("SELECT first_ns FROM metric_series WHERE id = ?"),
    };
    this.journal.seriesFirst.pluck().safeIntegers(true);
    this.pointInsert = db.prepare(
      `INSERT INTO ${POINT_COLUMNS} VALUES (${new Array(POINT_WIDTH).fill("?").join(", ")}) ON CONFLICT DO NOTHING`,
    );
    // The newest times have a narrow table of their own: they move with every minute (schema 23).
    this.lastUpdate = db.prepare(
      `UPDATE metric_series_last SET last_ns = max(metric_series_last.last_ns, e.last)
       FROM (SELECT value ->> 0 AS id, max(value ->> 1) AS last FROM json_each(?) GROUP BY 1) AS e
       WHERE metric_series_last.series_id = e.id`,
    );
    this.firstUpdate = db.prepare("UPDATE metric_series SET first_ns = ? WHERE id = ? AND first_ns > ?");
    this.firstWholeUpdate = db.prepare("UPDATE metric_series SET first_whole = ? WHERE id = ? AND first_ns > ?");
    this.firstStart = db
      .prepare(
        "SELECT p.start_ns FROM metric_series s JOIN metric_points p ON p.series_id = s.id AND p.time_ns = s.first_ns WHERE s.id = ?",
      )
      .pluck();
    this.heldMark = {
      set: db.prepare("INSERT OR REPLACE INTO meta (key, value) VALUES (?, '1')"),
      clear: db.prepare("DELETE FROM meta WHERE key = ?"),
    };
    const recoverable = `SELECT s.id, s.metric_id, s.first_whole, m.kind, m.temporality, m.monotonic,
        (SELECT time_ns FROM metric_points WHERE series_id = s.id ORDER BY time_ns DESC LIMIT 1) AS newest
      FROM metric_series s JOIN metrics m ON m.id = s.metric_id`;
    this.recoverable = {
      one: db.prepare(`${recoverable} WHERE s.id = ?`),
      all: db.prepare(recoverable),
    };
    this.markStatement = db.prepare("SELECT 1 FROM meta WHERE key = ?").pluck();
    this.heldMarked = this.markStored();
    if (this.heldMarked) {
      this.recovery = "all";
      this.replayPending = true;
    }
    // While refolds are pending, points may be in the journal only, of any series.
    registerHeldSeries(db, (seriesId) =>
      this.recovery !== null || this.replayPending ? "any" : this.held.get(seriesId)?.state.points.firstTimeNs(),
    );
  }

  /** Stores the points of one request; returns how many were new. */
  write(batch: MetricBatch, receivedNs: bigint): number {
    this.followRetention();
    this.recover();
    this.packer.noteClock(receivedNs);
    if (receivedNs > this.clockNs) this.clockNs = receivedNs;
    const { resources, scopes } = this.shared.resolveScopes(batch, receivedNs);
    /** The in-order points, their series and their detail texts: the request's journal row. */
    const journalIds: number[] = [];
    const journalPoints: MetricPointRecord[] = [];
    const journalDetails: (string | null)[] = [];
    /** The series of each in-order point, which holds it once the journal row is packed. */
    const holders: SeriesState[] = [];
    /** Series whose first held point is in this request's journal row. */
    const journaled: SeriesState[] = [];
    const older: { series: ResolvedSeries; point: MetricPointRecord; row: unknown[] }[] = [];
    let inserted = 0;
    for (const point of batch.points) {
      const resource = resources[point.resource] as ResolvedResource;
      const series = this.resolver.resolve(point, resource, scopes[point.scope] as number);
      const state = this.stateOf(series);
      const sent = pointDetailOf(point);
      const detailText = sent === null ? null : JSON.stringify(sent);
      const detail = asStored(sent, detailText);
      if (state.newestNs !== null && point.timeNs <= state.newestNs) {
        older.push({ series, point, row: pointRow(series.id, point, detailText) });
        continue;
      }
      // A series just created holds this point's time as its first already.
      if (state.newestNs === null && series.created !== true) this.mayBeFirst(series.id, point.timeNs);
      this.fold(series, state, rollupPointOf(point, detail));
      // Held until its series writes its points (POINT_HOLD_MINUTES); journaled meanwhile.
      journalIds.push(series.id);
      journalPoints.push(point);
      journalDetails.push(detailText);
      holders.push(state);
      if (state.journalId === 0) {
        state.journalId = -1;
        journaled.push(state);
      }
      if (point.timeNs > this.newestNs) this.newestNs = point.timeNs;
      this.shared.noteSeen(resource.serviceId, point.timeNs, receivedNs);
      inserted++;
    }
    if (journalPoints.length > 0) {
      const offsets: number[] = [];
      const bytes = packJournalRecords(journalIds, journalPoints, journalDetails, offsets);
      const id = Number(this.journal.append.run(bytes).lastInsertRowid);
      this.journalNewest = id;
      for (let i = 0; i < holders.length; i++) (holders[i] as SeriesState).points.add(bytes, offsets[i] as number);
      this.heldPoints += holders.length;
      for (const state of journaled) state.journalId = id;
    }
    // After the in-order points, so a late point's insert sees every point before it; and
    // after the points released so far, so that a resend of one of them is a repeat.
    if (older.length > 0) this.writeReleasedPoints();
    for (const { series, point, row } of older) {
      // A point the series holds is not in metric_points yet: sent again, it is a repeat too.
      if (this.holdsPoint(series.id, point.timeNs) || this.pointInsert.run(...row).changes === 0) continue;
      this.late.push({ series, timeNs: point.timeNs });
      this.mayBeFirst(series.id, point.timeNs, point.startNs);
      this.shared.noteSeen((resources[point.resource] as ResolvedResource).serviceId, point.timeNs, receivedNs);
      inserted++;
    }
    this.shared.count("points", inserted);
    return inserted;
  }

  private holdsPoint(seriesId: number, timeNs: bigint): boolean {
    return this.held.get(seriesId)?.state.points.has(timeNs) === true;
  }

  /** Whether anything is held unwritten, or waits to be refolded: what `releaseHeld` would write. */
  holds(): boolean {
    return this.held.size > 0 || this.recovery !== null;
  }

  /**
   * Makes this transaction's flush write every held row and newest time (TelemetryWriter's
   * `writeHeld`, a transaction of its own).
   */
  releaseHeld(): void {
    this.followRetention();
    this.recover();
    for (const [, entry] of this.held.releaseAll()) this.writeOut(entry);
  }

  /** Queues a series' rows and newest time, no longer held, for this transaction's flush. */
  private writeOut({ series, state }: HeldEntry): void {
    for (const row of state.rows.values()) this.closed.push({ metricId: series.metricId, seriesId: series.id, row });
    if (state.newestNs !== null) this.lasts.push(`[${series.id},${state.newestNs}]`);
    this.releasePoints(state);
    this.releasedIds.push(series.id);
  }

  /**
   * Writes the points released so far in this transaction to `metric_points`, read back from
   * their journal bytes one chunk of the multi-row insert at a time: a commit in which a tenth
   * of the series write their ten minutes of points releases tens of thousands, whose values
   * (two bigints each) held all at once were most of what the garbage collector copied then.
   */
  private writeReleasedPoints(): void {
    const refs = this.releasedPoints;
    const points = refs.length / 2;
    for (let done = 0; done < points; ) {
      const rows = this.pointsInsert.chunkRows(points - done);
      unpackJournalRefs(refs, done, rows, this.releasedChunk);
      this.pointsInsert.runChunk(rows, this.releasedChunk);
      done += rows;
    }
    this.releasedPoints = [];
  }

  /** Queues the points a series holds for `metric_points`. */
  private releasePoints(state: SeriesState): void {
    this.heldPoints -= state.points.count;
    state.points.takeInto(this.releasedPoints);
    state.journalId = 0;
  }

  /** Whether a series that moves on to `minute` writes its points now (POINT_HOLD_MINUTES). */
  private pointsDue(seriesId: number, minute: number): boolean {
    return (minute + seriesId) % POINT_HOLD_MINUTES === 0 || this.heldPoints > MAX_HELD_POINTS;
  }

  /**
   * Adds an in-order point to its series' rows of every width, and holds them. A point without
   * a value (`recorded`) adds nothing to the rows and opens none; it closes the rows of the
   * slots it moved past as any point does (so the only rows a series holds unwritten are those
   * of its newest point's minute, which a restart refolds), and it is held and written like any other.
   */
  private fold(series: ResolvedSeries, state: SeriesState, point: RollupPoint): void {
    const inc = recorded(point) ? pointIncrease(series.kind, state.last, point) : null;
    // Whole seconds once, then each width's slot as a number: no bigint division per width.
    const seconds = Number(point.timeNs / NS_PER_S);
    const minute = Math.floor(seconds / HELD_WIDTH_S);
    // Rows not held were written when they were last released.
    const heldMinute = this.held.minuteOf(series.id);
    const unwritten = heldMinute !== undefined;
    if (unwritten && heldMinute !== minute) {
      // The newest time the store has moves with the minute left: it stays within about a
      // minute of the truth for readers that do not ask first (health's services count). Its
      // points go every POINT_HOLD_MINUTES. Whether or not the minute left has a row: a series
      // whose points have no value has none.
      this.lasts.push(`[${series.id},${state.newestNs}]`);
      if (this.pointsDue(series.id, minute)) this.releasePoints(state);
    }
    for (const width of FOLDED_WIDTHS_S) {
      const slot = Math.floor(seconds / width);
      const row = state.rows.get(width);
      if (row !== undefined && row.slot !== slot) {
        if (unwritten) this.closed.push({ metricId: series.metricId, seriesId: series.id, row });
        if (inc === null) state.rows.delete(width);
      }
      if (inc !== null) {
        state.rows.set(width, addToRow(series.kind, row?.slot === slot ? row : emptyRow(width, slot), point, inc));
      }
    }
    if (inc !== null) state.last = point;
    state.newestNs = point.timeNs;
    // A series starting to hold has its newest time written now, so the store's stays within a
    // minute of the truth for readers that do not ask first.
    if (!unwritten) this.lasts.push(`[${series.id},${point.timeNs}]`);
    const entry = this.touched.get(series.id) ?? { series, state };
    this.touched.set(series.id, entry);
    this.held.hold(series.id, minute, entry);
  }

  /**
   * Whether a series' first point counts whole is decided by the point that created the series
   * (firstCountsWhole); a late point older than it is the series' first now, and decides
   * again, before the refolds read it: a new process's point arriving before its predecessor's
   * made the predecessor's lifetime count read as growth.
   */
  private decideFirstAgain(): void {
    for (const [id, first] of this.firstTimes) {
      if (first.startNs === undefined) continue;
      // A point of the process the series' first point was of keeps its decision: made before a
      // restart, or cleared by retention (its first kept point is a baseline). That first point
      // is stored, or held (the series' newest, then). Not a point whose start is after its own
      // time, which never counts whole (firstCountsWhole), as it would not have in order.
      const before =
        (this.firstStart.get(id) as bigint | undefined) ??
        (this.states.get(id) ?? this.held.get(id)?.state)?.last?.startNs;
      if (before === first.startNs && first.startNs <= first.timeNs) continue;
      const whole = firstCountsWhole({ startNs: first.startNs, timeNs: first.timeNs }, this.shared.collectorStartNs);
      if (this.firstWholeUpdate.run(whole ? 1 : 0, id, first.timeNs).changes === 0) continue;
      for (const { series } of this.late) {
        if (series.id === id) series.kind = { ...series.kind, firstWhole: whole };
      }
    }
  }

  /** Notes a point that may be its series' oldest; with its start when it is a late point's (flush). */
  private mayBeFirst(seriesId: number, timeNs: bigint, startNs?: bigint): void {
    const first = this.firstTimes.get(seriesId);
    if (first === undefined || timeNs < first.timeNs) {
      this.firstTimes.set(seriesId, startNs === undefined ? { timeNs } : { timeNs, startNs });
    }
  }

  /** The series' newest point and rows, read back from the store when not held. */
  private stateOf(series: ResolvedSeries): SeriesState {
    // A held series keeps its state even when the memo started over.
    const known = this.states.get(series.id) ?? this.held.get(series.id)?.state;
    if (known !== undefined) return known;
    const state: SeriesState = { last: null, newestNs: null, rows: new Map(), points: new HeldPoints(), journalId: 0 };
    if (!series.created) state.newestNs = this.rollups.newestTime(series.id);
    if (state.newestNs !== null) {
      state.last = this.rollups.newest(series.kind.kind, series.id);
      const lastNs = state.last?.timeNs;
      if (lastNs !== undefined) {
        for (const width of FOLDED_WIDTHS_S) {
          const row = this.rollups.read(series.metricId, series.id, width, slotOf(lastNs, width));
          if (row !== undefined) state.rows.set(width, row);
        }
      }
    }
    if (this.states.size >= STATES_KEPT) this.states = new Map();
    this.states.set(series.id, state);
    return state;
  }

  /**
   * Refolds, from the stored points, the newest minute of the series in `recovery` and writes
   * their newest times: what was held unwritten when it was lost. A series with no point left
   * is skipped.
   */
  private recover(): void {
    const recovery = this.recovery;
    // A rollback with nothing held or undone leaves a replay to do and nothing to refold; until
    // the replay runs, the journal is not trimmed.
    if (recovery === null && !this.replayPending) return;
    this.recovery = null;
    this.recovering = joined(this.recovering, recovery);
    if (this.replayPending) this.replayJournal();
    if (recovery === null) return;
    const rows =
      recovery === "all"
        ? (this.recoverable.all.all() as RecoverableSeries[])
        : [...recovery].flatMap((id) => this.recoverable.one.all(id) as RecoverableSeries[]);
    const lasts: string[] = [];
    for (const row of rows) {
      if (row.newest === null) continue;
      const metricId = Number(row.metric_id);
      const seriesId = Number(row.id);
      this.states.delete(seriesId);
      const stored = this.rollups.read(metricId, seriesId, HELD_WIDTH_S, slotOf(row.newest, HELD_WIDTH_S));
      if (stored === undefined || stored.lastNs !== row.newest) {
        this.rollups.recompute(metricId, seriesId, storedSeriesKind(row), row.newest);
      }
      lasts.push(`[${seriesId},${row.newest}]`);
    }
    if (lasts.length > 0) this.lastUpdate.run(`[${lasts.join(",")}]`);
  }

  flush(): void {
    // A late point's slots are refolded from the store below: its series' held rows go first.
    for (const { series } of this.late) {
      const entry = this.held.release(series.id);
      if (entry !== undefined) this.writeOut(entry);
    }
    if (this.newestNs > 0n) {
      const limit = this.clockNs > 0n ? this.clockNs + CLOCK_ALLOWANCE_NS : this.newestNs;
      const newest = this.newestNs < limit ? this.newestNs : limit;
      const minute = slotOf(newest, HELD_WIDTH_S);
      this.currentMinute = minute;
      for (const entry of this.held.releaseBefore(minute - HELD_MINUTES_BEHIND)) this.writeOut(entry);
    }
    for (const { series, state } of this.touched.values()) {
      if (state.newestNs !== null) this.packer.notePoint(series.metricId, state.newestNs);
    }
    // The trim may release the points of a series held long; then, before the late points'
    // refolds, which read a series' points from the store, every released point goes in.
    this.trimJournal();
    this.writeReleasedPoints();
    this.rollups.upsertAll(this.closed);
    this.decideFirstAgain();
    for (const { series, timeNs } of this.late) {
      this.rollups.recompute(series.metricId, series.id, series.kind, timeNs);
      // Its held rows may lack the late point: read them back when next needed.
      this.states.delete(series.id);
    }
    // One statement for every series written: times as JSON text, exact past 2^53.
    if (this.lasts.length > 0) this.lastUpdate.run(`[${this.lasts.join(",")}]`);
    for (const [id, { timeNs }] of this.firstTimes) this.firstUpdate.run(timeNs, id, timeNs);
    // After every row of the transaction, which the packs are made from.
    this.packer.flush();
    this.shared.count("series", this.resolver.takeCreated());
    // Refolds still to do count as holding: a stop before they run must leave them to the next writer.
    const holding = this.held.size > 0 || this.recovery !== null;
    if (holding !== this.heldMarked) {
      if (holding) this.heldMark.set.run(HELD_META_KEY);
      else this.heldMark.clear.run(HELD_META_KEY);
      this.heldMarked = holding;
    }
    this.forgetTransaction();
  }

  /**
   * After a rollback: the store is back at the last commit, which the memory no longer matches
   * for the series this transaction released, folded into or refolded, nor for those it held.
   * Each is refolded from its stored points in the next transaction.
   */
  clear(): void {
    const undone = [...this.releasedIds, ...this.touched.keys(), ...this.late.map(({ series }) => series.id)];
    this.recovery = joined(joined(this.recovery, this.recovering), new Set(undone));
    // What it held, and what this transaction replayed, is in the journal only again.
    this.replayPending = true;
    this.committed();
    this.forgetTransaction();
    this.forgetMemos();
    // The store is back at the last commit, and so is the mark (SQLite's rollback restored it).
    this.journalTrimmedAt = undefined;
    try {
      this.heldMarked = this.markStored();
    } catch {
      // Unreadable: the next transaction that holds sets it again, which is harmless.
      this.heldMarked = false;
    }
  }

  /**
   * The transaction flushed last committed: what it released and refolded is in the store.
   * Kept until then, not only until flush: the other signals' writes and COMMIT come after it.
   */
  committed(): void {
    this.releasedIds.length = 0;
    this.recovering = null;
  }

  /**
   * Writes every journaled point to `metric_points` (those it has already are skipped, as are
   * those of series retention deleted since, and those before their series' first time, which
   * retention deleted: a point written from the journal stays in it until its row is trimmed)
   * and empties the journal: what a writer held when it stopped, or what this one forgot.
   */
  private replayJournal(): void {
    const firsts = new Map<number, bigint | null>();
    let after = 0;
    for (;;) {
      // A chunk at a time: a long journal is not read into memory whole.
      const chunk = this.journal.rows.raw().all(after) as [number, Uint8Array][];
      if (chunk.length === 0) break;
      after = (chunk.at(-1) as [number, Uint8Array])[0];
      for (const [, bytes] of chunk) this.replayRow(bytes, firsts);
    }
    this.clearJournal();
    this.journalTrimmedAt = undefined;
    this.replayPending = false;
    // What is still held is in metric_points now: nothing of the journal is needed for it.
    for (const [, { state }] of this.held.entries()) state.journalId = 0;
  }

  /** `firsts`: each series' first time as stored, null when it is gone. */
  private replayRow(bytes: Uint8Array, firsts: Map<number, bigint | null>): void {
    const values = unpackJournalPoints(bytes);
    const kept: unknown[] = [];
    for (let at = 0; at < values.length; at += JOURNAL_POINT_WIDTH) {
      const id = values[at] as number;
      let first = firsts.get(id);
      if (first === undefined) {
        first = (this.journal.seriesFirst.get(id) as bigint | undefined) ?? null;
        firsts.set(id, first);
      }
      // Its series' first time is at or before every point it has or the writer held
      // (retention moves it past the points it deletes only).
      if (first !== null && (values[at + 1] as bigint) >= first) {
        for (let i = at; i < at + JOURNAL_POINT_WIDTH; i++) kept.push(values[i]);
      }
    }
    if (kept.length > 0) this.pointsInsert.run(kept);
  }

  /**
   * Deletes the journal rows every point of which is in `metric_points`: those before the
   * first row of any point still held. Once per held minute, not per commit.
   */
  private trimJournal(): void {
    // What a stop or a rollback made this writer forget is only in the journal until replayed.
    if (this.recovery !== null || this.replayPending) return;
    const oldest = this.held.oldestMinute() ?? null;
    if (oldest === this.journalTrimmedAt) return;
    this.journalTrimmedAt = oldest;
    if (oldest === null) {
      this.clearJournal();
      return;
    }
    // A series holding points since before the oldest trim remembered (dated ahead of the
    // clock, or reporting far less often than its minute) would keep every later row: its points
    // go to metric_points now, while its row stays held.
    const pinnedThrough = this.journalMarks[0] as number;
    let first = Number.POSITIVE_INFINITY;
    for (const [, { state }] of this.held.entries()) {
      if (state.journalId > 0 && state.journalId <= pinnedThrough) this.releasePoints(state);
      if (state.journalId > 0 && state.journalId < first) first = state.journalId;
    }
    if (this.currentMinute > this.journalMarkedMinute) {
      this.journalMarkedMinute = this.currentMinute;
      this.journalMarks.shift();
      this.journalMarks.push(this.journalNewest);
    }
    if (first !== Number.POSITIVE_INFINITY) this.journal.trimThrough.run(first - 1);
    else this.clearJournal();
  }

  /** Empties the journal. Its row ids start over then, so the marks of earlier trims are forgotten. */
  private clearJournal(): void {
    this.journal.clear.run();
    this.journalMarks = unmarkedJournal();
    this.journalMarkedMinute = Number.NEGATIVE_INFINITY;
    this.journalNewest = 0;
  }

  private markStored(): boolean {
    return this.markStatement.get(HELD_META_KEY) !== undefined;
  }

  private forgetTransaction(): void {
    this.touched.clear();
    this.closed.length = 0;
    this.lasts.length = 0;
    this.releasedPoints = [];
    this.late.length = 0;
    this.newestNs = 0n;
    this.clockNs = 0n;
    this.firstTimes.clear();
    this.packer.clearTransaction();
  }

  /**
   * Forgets ids and states that a rollback may have made wrong. What was held is refolded from
   * the stored points instead: the rollback may have taken points it holds.
   */
  private forgetMemos(): void {
    this.resolver.forget();
    this.packer.forget();
    this.states = new Map();
    this.recovery = joined(this.recovery, new Set(this.held.releaseAll().map(([id]) => id)));
    // Their points are in the journal, replayed before the refolds.
    this.heldPoints = 0;
    this.deletionsSeen = metricDeletions();
  }

  /**
   * Whether it holds points older than the latest retention pass's cutoff, which the pass could
   * not see, or has refolds to do (after a pass deleted rows, a rollback, a restart), while
   * which a pass counts every series as held (their points may be in the journal only) and
   * deletes none: `releaseForRetention` in a transaction writes the points and does the
   * refolds. An idle collector would otherwise keep them, and count them, until its next metric
   * request (the refolds, until then, every series of the store).
   */
  retentionDue(): boolean {
    if (this.recovery !== null || metricDeletions() !== this.deletionsSeen) return true;
    const cutoff = metricPassCutoff(this.db);
    if (cutoff === 0n) return false;
    for (const [, { state }] of this.held.entries()) {
      const first = state.points.firstTimeNs();
      if (first !== undefined && first < cutoff) return true;
    }
    return false;
  }

  /**
   * Catches up with the retention passes run since the last write (metric-retention.ts). Every
   * pass, deleting or not, moves the cutoff seen here to at least its own.
   */
  private followRetention(): void {
    if (metricDeletions() !== this.deletionsSeen) this.forgetDeleted();
    const cutoff = metricPassCutoff(this.db);
    if (cutoff === this.cutoffSeen) return;
    this.releaseBefore(cutoff);
  }

  /**
   * Makes this transaction's flush write the held points past the last pass's cutoff, and does
   * the refolds waiting (`retentionDue`), those of the passes' deletions included.
   */
  releaseForRetention(): void {
    if (metricDeletions() !== this.deletionsSeen) this.forgetDeleted();
    this.releaseBefore(metricPassCutoff(this.db));
    this.recover();
  }

  private releaseBefore(cutoff: bigint): void {
    this.cutoffSeen = cutoff;
    // A series may hold points older than the cutoff, of minutes it has left (POINT_HOLD_MINUTES),
    // which the pass could not see: they are written now (at this transaction's flush), for
    // the next pass, as if they had been written before this one.
    for (const [, { series, state }] of this.held.entries()) {
      const first = state.points.firstTimeNs();
      if (first !== undefined && first < cutoff) this.writeForRetention(series, state);
    }
  }

  /**
   * After retention deleted metric rows: forgets ids and states, which may name deleted series.
   * A held minute is kept unless it starts before the cutoff (a series retention may have
   * deleted, or whose held points it did), which is refolded from what is left instead.
   */
  private forgetDeleted(): void {
    this.resolver.forget();
    this.packer.forget();
    this.states = new Map();
    const before = metricDeletedBefore();
    if (before > 0n) {
      const reached = this.held.releaseBefore(slotOf(before - 1n, HELD_WIDTH_S) + 1);
      // Their points go in now (retention keeps a series it holds points of, and deletes them on
      // a later pass), so the refold below reads them, with no replay of the journal.
      // (Those of series still held go at this transaction's flush: followRetention.)
      for (const { series, state } of reached) this.writeForRetention(series, state);
      this.writeReleasedPoints();
      this.recovery = joined(this.recovery, new Set(reached.map(({ series }) => series.id)));
    }
    this.deletionsSeen = metricDeletions();
  }

  /** Releases a series' points for retention's next pass, its stored first time moved back to them. */
  private writeForRetention(series: ResolvedSeries, state: SeriesState): void {
    // Retention may have moved its first time past them (metric-retention.ts).
    const first = state.points.firstTimeNs();
    if (first !== undefined) this.mayBeFirst(series.id, first);
    this.releasePoints(state);
  }
}

function unmarkedJournal(): number[] {
  return new Array<number>(POINT_HOLD_MINUTES + 2).fill(0);
}

/** Series to refold from their points; "all": every series. */
type Recovery = "all" | Set<number> | null;

function joined(a: Recovery, b: Recovery): Recovery {
  if (b === null || (b !== "all" && b.size === 0)) return a;
  if (a === null || (a !== "all" && a.size === 0)) return b;
  if (a === "all" || b === "all") return "all";
  return new Set([...a, ...b]);
}

/** A series as `recover` reads it: its identity, kind and newest stored point time. */
interface RecoverableSeries {
  id: number | bigint;
  metric_id: number | bigint;
  first_whole: number | bigint;
  kind: SeriesKind["kind"];
  temporality: number | bigint;
  monotonic: number | bigint;
  newest: bigint | null;
}

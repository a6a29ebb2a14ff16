import type Database from "better-sqlite3";
import type { MetricBatch, MetricPointRecord } from "../otlp/records.js";
import type { ResolvedResource } from "./dictionaries.js";
import { KnownAttributeTexts } from "./known-attribute-texts.js";
import { exemplarTraceIds, pointDetailOf } from "./metric-point-detail.js";
import { metricDeletions } from "./metric-retention.js";
import { addToRow, emptyRow, pointIncrease, type RollupPoint, type RollupRow } from "./metric-rollup.js";
import { MetricRollupStore } from "./metric-rollup-store.js";
import { MetricSeriesResolver, type ResolvedSeries } from "./metric-series.js";
import { MetricSlotPacker } from "./metric-slot-packer.js";
import { FOLDED_WIDTHS_S, slotOf } from "./metric-slots.js";
import { MultiRowStatement } from "./multi-row.js";
import type { RecordWriter, SharedWriteState } from "./record-writer.js";

const POINT_COLUMNS =
  "metric_points (series_id, time_ns, start_ns, flags, value, count, sum, min, max, detail, exemplars)";
const POINT_WIDTH = 11;
const NS_PER_S = 1_000_000_000n;
/** Series whose state is remembered; past this the memo starts over (a miss reads two rows back). */
const STATES_KEPT = 200_000;

/** What the writer remembers of a series: its newest point and its rows of that point's slots. */
interface SeriesState {
  last: RollupPoint | null;
  rows: Map<number, RollupRow>;
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

function rollupPointOf(point: MetricPointRecord, detail: ReturnType<typeof pointDetailOf>): RollupPoint {
  return {
    timeNs: point.timeNs,
    startNs: point.startNs,
    value: point.value,
    count: point.count,
    sum: point.sum,
    min: point.min,
    max: point.max,
    detail,
    traceIds: exemplarTraceIds(point.exemplars),
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
 * series (read back from the store once after a restart) and those rows are written at flush.
 * An older one is stored and its slots are refolded from the stored points at flush, so the
 * rollups are the same whatever order points arrive in.
 */
export class MetricWriter implements RecordWriter {
  /** One string per attribute set across requests (unpackMetricSlices). */
  readonly attributeTexts = new KnownAttributeTexts();
  private readonly resolver: MetricSeriesResolver;
  private readonly rollups: MetricRollupStore;
  private readonly packer: MetricSlotPacker;
  private readonly pointsInsert: MultiRowStatement;
  private readonly pointInsert: Database.Statement;
  private readonly lastUpdate: Database.Statement;
  private readonly firstUpdate: Database.Statement;
  private states = new Map<number, SeriesState>();
  /** Series whose held rows changed in this transaction (their rows are written at flush). */
  private readonly touched = new Map<number, { series: ResolvedSeries; state: SeriesState }>();
  /** Rows a series moved on from to a later slot in this transaction. */
  private readonly closed: PendingRow[] = [];
  private readonly late: LatePoint[] = [];
  /** Newest in-order point time stored per series in this transaction. */
  private readonly lastTimes = new Map<number, bigint>();
  /**
   * Per series, the oldest point of this transaction that may be older than its stored first
   * time: a late point, or the first point this writer saw of it (in-order points after that
   * are newer than the series' newest, so they cannot move its first time).
   */
  private readonly firstTimes = new Map<number, bigint>();
  /** Retention's deletion count when the memos were last trusted. */
  private deletionsSeen = metricDeletions();

  constructor(
    db: Database.Database,
    private readonly shared: SharedWriteState,
  ) {
    this.resolver = new MetricSeriesResolver(db, shared);
    this.packer = new MetricSlotPacker(db);
    this.rollups = new MetricRollupStore(db, (metricId, widthS, slot, seriesId) =>
      this.packer.noteRow(metricId, widthS, slot, seriesId),
    );
    this.pointsInsert = new MultiRowStatement(db, POINT_COLUMNS, POINT_WIDTH, "ON CONFLICT DO NOTHING", 256, false);
    this.pointInsert = db.prepare(
      `INSERT INTO ${POINT_COLUMNS} VALUES (${new Array(POINT_WIDTH).fill("?").join(", ")}) ON CONFLICT DO NOTHING`,
    );
    // The newest times have a narrow table of their own: every commit moves them (schema 23).
    this.lastUpdate = db.prepare(
      `UPDATE metric_series_last SET last_ns = max(metric_series_last.last_ns, e.last)
       FROM (SELECT value ->> 0 AS id, value ->> 1 AS last FROM json_each(?)) AS e
       WHERE metric_series_last.series_id = e.id`,
    );
    this.firstUpdate = db.prepare("UPDATE metric_series SET first_ns = ? WHERE id = ? AND first_ns > ?");
  }

  /** Stores the points of one request; returns how many were new. */
  write(batch: MetricBatch, receivedNs: bigint): number {
    if (metricDeletions() !== this.deletionsSeen) this.forgetMemos();
    this.packer.noteClock(receivedNs);
    const { resources, scopes } = this.shared.resolveScopes(batch, receivedNs);
    const values: unknown[] = [];
    const older: { series: ResolvedSeries; point: MetricPointRecord; row: unknown[] }[] = [];
    let inserted = 0;
    for (const point of batch.points) {
      const resource = resources[point.resource] as ResolvedResource;
      const series = this.resolver.resolve(point, resource, scopes[point.scope] as number);
      const state = this.stateOf(series);
      const detail = pointDetailOf(point);
      const detailText = detail === null ? null : JSON.stringify(detail);
      if (state.last !== null && point.timeNs <= state.last.timeNs) {
        older.push({ series, point, row: pointRow(series.id, point, detailText) });
        continue;
      }
      // A series just created holds this point's time as its first already.
      if (state.last === null && series.created !== true) this.mayBeFirst(series.id, point.timeNs);
      this.fold(series, state, rollupPointOf(point, detail));
      // Straight into the statement's values: no row array per point.
      values.push(
        series.id,
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
      );
      this.lastTimes.set(series.id, point.timeNs);
      this.shared.noteSeen(resource.serviceId, point.timeNs);
      inserted++;
    }
    if (values.length > 0) this.pointsInsert.run(values);
    // After the in-order points, so a late point's insert sees every point before it.
    for (const { series, point, row } of older) {
      if (this.pointInsert.run(...row).changes === 0) continue;
      this.late.push({ series, timeNs: point.timeNs });
      this.mayBeFirst(series.id, point.timeNs);
      this.shared.noteSeen((resources[point.resource] as ResolvedResource).serviceId, point.timeNs);
      inserted++;
    }
    this.shared.count("points", inserted);
    return inserted;
  }

  /** Adds an in-order point to its series' rows of every width. */
  private fold(series: ResolvedSeries, state: SeriesState, point: RollupPoint): void {
    const inc = pointIncrease(series.kind, state.last, point);
    const touched = this.touched.has(series.id);
    // Whole seconds once, then each width's slot as a number: no bigint division per width.
    const seconds = Number(point.timeNs / NS_PER_S);
    for (const width of FOLDED_WIDTHS_S) {
      const slot = Math.floor(seconds / width);
      const held = state.rows.get(width);
      if (held !== undefined && held.slot !== slot && touched) {
        this.closed.push({ metricId: series.metricId, seriesId: series.id, row: held });
      }
      state.rows.set(width, addToRow(series.kind, held?.slot === slot ? held : emptyRow(width, slot), point, inc));
    }
    if (!touched) this.touched.set(series.id, { series, state });
    state.last = point;
  }

  private mayBeFirst(seriesId: number, timeNs: bigint): void {
    const first = this.firstTimes.get(seriesId);
    if (first === undefined || timeNs < first) this.firstTimes.set(seriesId, timeNs);
  }

  /** The series' newest point and rows, read back from the store when not held. */
  private stateOf(series: ResolvedSeries): SeriesState {
    // A series touched in this transaction keeps its state even when the memo started over.
    const held = this.states.get(series.id) ?? this.touched.get(series.id)?.state;
    if (held !== undefined) return held;
    const state: SeriesState = { last: null, rows: new Map() };
    if (!series.created) {
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

  flush(): void {
    const rows = this.closed;
    for (const { series, state } of this.touched.values()) {
      for (const row of state.rows.values()) rows.push({ metricId: series.metricId, seriesId: series.id, row });
      if (state.last !== null) this.packer.notePoint(series.metricId, state.last.timeNs);
    }
    this.rollups.upsertAll(rows);
    for (const { series, timeNs } of this.late) {
      this.rollups.recompute(series.metricId, series.id, series.kind, timeNs);
      // Its held rows may lack the late point: read them back when next needed.
      this.states.delete(series.id);
    }
    if (this.lastTimes.size > 0) {
      // One statement for every series touched: times as JSON text, exact past 2^53. An
      // in-order point is its series' newest, so the last entry per series is the newest.
      const lasts = [...this.lastTimes].map(([id, last]) => `[${id},${last}]`);
      this.lastUpdate.run(`[${lasts.join(",")}]`);
    }
    for (const [id, first] of this.firstTimes) this.firstUpdate.run(first, id, first);
    // After every row of the transaction, which the packs are made from.
    this.packer.flush();
    this.shared.count("series", this.resolver.takeCreated());
    this.forgetTransaction();
  }

  clear(): void {
    this.forgetTransaction();
    this.forgetMemos();
  }

  private forgetTransaction(): void {
    this.touched.clear();
    this.closed.length = 0;
    this.late.length = 0;
    this.lastTimes.clear();
    this.firstTimes.clear();
    this.packer.clearTransaction();
  }

  /** Forgets ids and states that a rollback or retention may have made wrong. */
  private forgetMemos(): void {
    this.resolver.forget();
    this.packer.forget();
    this.states = new Map();
    this.deletionsSeen = metricDeletions();
  }
}

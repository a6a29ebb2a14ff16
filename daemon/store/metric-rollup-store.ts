import type Database from "better-sqlite3";
import type { MetricKind } from "../otlp/records.js";
import { exemplarTraceIds, parsePointDetail } from "./metric-point-detail.js";
import {
  type RollupBuckets,
  type RollupPoint,
  type RollupRow,
  recordedSql,
  rollupPoints,
  type SeriesKind,
} from "./metric-rollup.js";
import { FOLDED_WIDTHS_S } from "./metric-slots.js";
import { MultiRowStatement } from "./multi-row.js";
import { rowExemplarsOf, rowExemplarsText } from "./rollup-exemplars.js";

/** Every column of metric_rollups: a row written replaces the row of its key whole. */
export const ROLLUP_COLUMNS = [
  "metric_id",
  "width_s",
  "slot",
  "series_id",
  "points",
  "first_ns",
  "last_ns",
  "value_sum",
  "value_min",
  "value_max",
  "value_last",
  "increase",
  "sum_increase",
  "resets",
  "buckets",
  "exemplars",
];
const POINT_COLUMNS = "time_ns, start_ns, value, count, sum, min, max, detail, exemplars, flags";
/** The points rollups fold (`recorded`): the baseline before a slot, the newest, the next. */
const RECORDED = recordedSql("");

interface StoredPoint {
  time_ns: bigint;
  start_ns: bigint;
  value: number | null;
  count: bigint | null;
  sum: number | null;
  min: number | null;
  max: number | null;
  detail: string | Buffer | null;
  exemplars: string | null;
  flags: bigint | number;
}

type StoredRow = Record<string, unknown> & { buckets: string | null; exemplars: string | null };

const NS_PER_S = 1_000_000_000n;

export function pointFromRow(kind: MetricKind, row: StoredPoint): RollupPoint {
  return {
    timeNs: row.time_ns,
    startNs: row.start_ns,
    value: row.value,
    count: row.count === null ? null : Number(row.count),
    sum: row.sum,
    min: row.min,
    max: row.max,
    detail: parsePointDetail(kind, row.detail),
    traceIds: exemplarTraceIds(row.exemplars),
    flags: Number(row.flags),
  };
}

/** Appends a row's column values, in ROLLUP_COLUMNS order, to `out` (no array per row). */
export function pushRowValues(out: unknown[], metricId: number, seriesId: number, row: RollupRow): void {
  out.push(
    metricId,
    row.widthS,
    row.slot,
    seriesId,
    row.points,
    row.firstNs,
    row.lastNs,
    row.valueSum,
    row.valueMin,
    row.valueMax,
    row.valueLast,
    row.increase,
    row.sumIncrease,
    row.resets,
    row.buckets === null ? null : JSON.stringify(row.buckets),
    rowExemplarsText(row.exemplars),
  );
}

const num = (value: unknown): number | null => (value === null ? null : Number(value));

/**
 * Writes whole `metric_rollups` rows, many per statement (values in ROLLUP_COLUMNS order). A
 * row carries every column, so replacing the row of its key is the upsert, and SQLite replaces
 * in place for less than an ON CONFLICT ... DO UPDATE costs.
 */
export function rollupRowsStatement(db: Database.Database): MultiRowStatement {
  return new MultiRowStatement(
    db,
    `metric_rollups (${ROLLUP_COLUMNS.join(", ")})`,
    ROLLUP_COLUMNS.length,
    "",
    128,
    false,
    "REPLACE",
  );
}

/** A `metric_rollups` row read raw, in ROLLUP_COLUMNS order, as rowFromStored reads it. */
export function rowFromValues(values: readonly unknown[]): RollupRow {
  const [, widthS, slot, , points, firstNs, lastNs, valueSum, valueMin, valueMax, valueLast, increase] = values;
  const [sumIncrease, resets, buckets, exemplars] = values.slice(12);
  const last = BigInt(lastNs as bigint);
  return {
    widthS: Number(widthS),
    slot: Number(slot),
    points: Number(points),
    firstNs: BigInt(firstNs as bigint),
    lastNs: last,
    valueSum: num(valueSum),
    valueMin: num(valueMin),
    valueMax: num(valueMax),
    valueLast: num(valueLast),
    increase: num(increase),
    sumIncrease: num(sumIncrease),
    resets: Number(resets),
    buckets: buckets === null ? null : (JSON.parse(buckets as string) as RollupBuckets),
    exemplars: rowExemplarsOf(exemplars as string | null, last),
  };
}

/** A `metric_rollups` row as read (`SELECT *`), without its metric and series ids. */
export function rowFromStored(row: Record<string, unknown>): RollupRow {
  const buckets = row.buckets as string | null;
  const lastNs = BigInt(row.last_ns as bigint);
  return {
    widthS: Number(row.width_s),
    slot: Number(row.slot),
    points: Number(row.points),
    firstNs: BigInt(row.first_ns as bigint),
    lastNs,
    valueSum: num(row.value_sum),
    valueMin: num(row.value_min),
    valueMax: num(row.value_max),
    valueLast: num(row.value_last),
    increase: num(row.increase),
    sumIncrease: num(row.sum_increase),
    resets: Number(row.resets),
    buckets: buckets === null ? null : (JSON.parse(buckets) as RollupBuckets),
    exemplars: rowExemplarsOf(row.exemplars as string | null, lastNs),
  };
}

/**
 * The stored side of metric rollups: rows written and read back, a series' newest point read
 * back (its state after a restart), and a slot refolded from its stored points when a point
 * arrives out of order.
 */
export class MetricRollupStore {
  private readonly stmt: Record<
    "upsert" | "row" | "newest" | "newestTime" | "before" | "inSlot" | "after",
    Database.Statement
  >;
  /** Many rows per statement: a commit rewrites a row per series and width it touched. */
  private readonly upserts: MultiRowStatement;

  /** `onWrite` hears every row written (metric-slot-packer.ts repacks a packed slot's). */
  constructor(
    db: Database.Database,
    private readonly onWrite: (metricId: number, widthS: number, slot: number, seriesId: number) => void = () => {},
  ) {
    this.upserts = rollupRowsStatement(db);
    this.stmt = {
      upsert: db.prepare(
        `INSERT OR REPLACE INTO metric_rollups (${ROLLUP_COLUMNS.join(", ")}) VALUES (${ROLLUP_COLUMNS.map(() => "?").join(", ")})`,
      ),
      row: db.prepare(
        "SELECT * FROM metric_rollups WHERE metric_id = ? AND width_s = ? AND slot = ? AND series_id = ?",
      ),
      newest: db.prepare(
        `SELECT ${POINT_COLUMNS} FROM metric_points WHERE series_id = ? AND ${RECORDED} ORDER BY time_ns DESC LIMIT 1`,
      ),
      newestTime: db.prepare("SELECT max(time_ns) FROM metric_points WHERE series_id = ?"),
      before: db.prepare(
        `SELECT ${POINT_COLUMNS} FROM metric_points WHERE series_id = ? AND time_ns < ? AND ${RECORDED}
         ORDER BY time_ns DESC LIMIT 1`,
      ),
      inSlot: db.prepare(
        `SELECT ${POINT_COLUMNS} FROM metric_points WHERE series_id = ? AND time_ns >= ? AND time_ns < ? ORDER BY time_ns`,
      ),
      after: db.prepare(
        `SELECT time_ns FROM metric_points WHERE series_id = ? AND time_ns > ? AND ${RECORDED} ORDER BY time_ns LIMIT 1`,
      ),
    };
    this.stmt.after.pluck();
    this.stmt.newestTime.pluck();
  }

  upsert(metricId: number, seriesId: number, row: RollupRow): void {
    const values: unknown[] = [];
    pushRowValues(values, metricId, seriesId, row);
    this.stmt.upsert.run(values);
    this.onWrite(metricId, row.widthS, row.slot, seriesId);
  }

  /** Writes many rows at once (each row's key once). */
  upsertAll(rows: readonly { metricId: number; seriesId: number; row: RollupRow }[]): void {
    // A chunk at a time: the minute's commit in which every series moves on writes a row each.
    this.upserts.runRows(rows, (values, { metricId, seriesId, row }) => {
      pushRowValues(values, metricId, seriesId, row);
      this.onWrite(metricId, row.widthS, row.slot, seriesId);
    });
  }

  /** A stored row, or undefined. */
  read(metricId: number, seriesId: number, widthS: number, slot: number): RollupRow | undefined {
    const row = this.stmt.row.get(metricId, widthS, slot, seriesId) as StoredRow | undefined;
    return row === undefined ? undefined : rowFromStored(row);
  }

  /** A series' newest stored point that rollups fold (`recorded`), or null when it has none. */
  newest(kind: MetricKind, seriesId: number): RollupPoint | null {
    const row = this.stmt.newest.get(seriesId) as StoredPoint | undefined;
    return row === undefined ? null : pointFromRow(kind, row);
  }

  /** The time of a series' newest stored point, recorded or not, or null when it has none. */
  newestTime(seriesId: number): bigint | null {
    return (this.stmt.newestTime.get(seriesId) as bigint | null) ?? null;
  }

  /**
   * Refolds, from the stored points, every width's slot of a point that arrived out of order
   * and the slot of the point after it (whose increase now starts from the new point).
   */
  recompute(metricId: number, seriesId: number, series: SeriesKind, timeNs: bigint): void {
    const next = this.stmt.after.get(seriesId, timeNs) as bigint | undefined;
    for (const width of FOLDED_WIDTHS_S) {
      const span = BigInt(width) * NS_PER_S;
      const slots = new Set([timeNs / span]);
      if (next !== undefined) slots.add(next / span);
      for (const slot of slots) {
        const start = slot * span;
        const prev = this.stmt.before.get(seriesId, start) as StoredPoint | undefined;
        const points = (this.stmt.inSlot.all(seriesId, start, start + span) as StoredPoint[]).map((row) =>
          pointFromRow(series.kind, row),
        );
        const prevPoint = prev === undefined ? null : pointFromRow(series.kind, prev);
        for (const row of rollupPoints(series, prevPoint, points, [width])) this.upsert(metricId, seriesId, row);
      }
    }
  }
}

/**
 * The metric reads of TelemetryReader over the store's tables (migrations/v008-metrics.ts):
 * identities and series from `metrics` / `metric_series`, attributes from
 * `metric_series_attributes`, values aggregated in SQLite from `metric_rollups` or
 * `metric_points` (metrics/metric-bucket-sql.ts), and a day's view at its default step from
 * `metric_slot_packs` (metrics/slot-groups.ts).
 */
import type Database from "better-sqlite3";
import type { MetricDetailRecord, MetricSummaryRecord } from "../../shared/query-types.js";
import { nsToIso } from "../../shared/time.js";
import type { PlainValue } from "../otlp/any-value.js";
import { recordedSql } from "../store/metric-rollup.js";
import { FOLDED_WIDTHS_S } from "../store/metric-slots.js";
import { readExemplarScan, registerExemplarWanted } from "./metrics/exemplar-scan.js";
import { GroupExemplars } from "./metrics/group-exemplars.js";
import { bucketSql, cellsSql, exemplarSql, metricBinds, metricIn, seriesSql } from "./metrics/metric-bucket-sql.js";
import { registerMetricFunctions, type SeriesGroups } from "./metrics/metric-sql-functions.js";
import { bucketStarts } from "./metrics/metric-steps.js";
import { MAX_LAST_AGE_NS, valueNow } from "./metrics/newest-last.js";
import { seriesRate, TRAILING_MINUTES, type TrailingWindow, trailingWindow } from "./metrics/newest-rate.js";
import {
  combineFigures,
  type Figures,
  type PackedSlotRow,
  packedSlotFigures,
  packedSlotsSql,
  registerSlotGroups,
  type SlotPlan,
  slotFigures,
  slotPlan,
  slotSql,
  slotValue,
} from "./metrics/slot-groups.js";
import { likeAny, registerAttributeFunctions } from "./sql-parts.js";
import { StatementCache } from "./statement-cache.js";
import {
  identityKind,
  type MetricBucketQuery,
  type MetricGroupValues,
  type MetricIdentity,
  type MetricListQuery,
  type MetricScope,
  type PageResult,
} from "./telemetry-reader.js";
import { capAttributes, capText } from "./value-cap.js";

/** The points rollups fold (metric-rollup.ts `recorded`), as the raw path reads them. */
const RECORDED_POINT = recordedSql("q.");

/** Windows up to this long count points from the 60 s rollups, longer ones from the 900 s ones. */
const SHORT_COUNT_WINDOW_NS = 6n * 3600n * 1_000_000_000n;

interface IdentityRow {
  id: bigint;
  name: string;
  kind: MetricIdentity["type"];
  unit: string;
  description: string;
  temporality: bigint;
  monotonic: bigint;
  metadata: string | null;
}

function identityOf(row: IdentityRow): MetricIdentity {
  return {
    id: Number(row.id),
    name: row.name,
    type: row.kind,
    unit: row.unit,
    description: row.description,
    temporality: Number(row.temporality),
    monotonic: row.monotonic === 1n,
    metadata: row.metadata,
  };
}

function summaryOf(
  metric: MetricIdentity,
  services: string,
  series: bigint,
  points: number,
  lastNs: bigint,
): MetricSummaryRecord {
  return {
    name: metric.name,
    type: metric.type,
    unit: capText(metric.unit),
    description: capText(metric.description),
    ...identityKind(metric),
    services: (JSON.parse(services) as string[]).sort().map(capText),
    seriesCount: Number(series),
    pointCount: points,
    lastTime: nsToIso(lastNs),
  };
}

const IDENTITY_COLUMNS = "m.id, m.name, m.kind, m.unit, m.description, m.temporality, m.monotonic, m.metadata";

/** How far back from a window's end `metricInterval` looks, and at how many series at most. */
const INTERVAL_LOOK_NS = 15n * 60n * 1_000_000_000n;
const INTERVAL_SERIES = 50;

/**
 * The lower median: of an even count, the lower middle value, so that two series exporting
 * every 10 s and every minute read at the faster one's step, not at 35 s.
 */
function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor((sorted.length - 1) / 2)] as number;
}

export class SqliteMetrics {
  private readonly statements: StatementCache;
  private readonly seriesGroups: SeriesGroups;
  /** The groups' exemplars of the query being run; queries run one at a time on a connection. */
  private readonly exemplars = new GroupExemplars();

  constructor(db: Database.Database) {
    this.statements = new StatementCache(db);
    registerAttributeFunctions(db);
    this.seriesGroups = registerMetricFunctions(db);
    registerSlotGroups(db, this.seriesGroups, this.exemplars);
    registerExemplarWanted(db, this.seriesGroups, this.exemplars);
  }

  private prepare(sql: string): Database.Statement {
    return this.statements.get(sql);
  }

  /**
   * Points of a metric's series in the window, from the rollup slots it touches: a 900 s slot's
   * rows where it is packed, else its 60 s rows (metric-bucket-sql.ts).
   */
  private pointCount(metricId: number, fromNs: bigint, toNs: bigint, service: string | undefined): number {
    const width = toNs - fromNs <= SHORT_COUNT_WINDOW_NS ? 60n : 900n;
    const slotNs = width * 1_000_000_000n;
    const lo = fromNs / slotNs;
    const hi = toNs / slotNs;
    const through = width === 60n ? hi : (this.packedThrough(metricId, Number(width), lo, hi) ?? lo - 1n);
    const per = width / 60n;
    const serviceCondition =
      service === undefined
        ? ""
        : "AND r.series_id IN (SELECT ms.id FROM metric_series ms JOIN services v ON v.id = ms.service_id WHERE ms.metric_id = @metric AND v.name = @service)";
    const count = this.prepare(
      // Two range scans: an OR of the two ranges scans the metric's every row.
      `SELECT (SELECT coalesce(sum(r.points), 0) FROM metric_rollups r
          WHERE r.metric_id = @metric AND r.width_s = @width AND r.slot BETWEEN @lo AND @through ${serviceCondition})
        + (SELECT coalesce(sum(r.points), 0) FROM metric_rollups r
          WHERE r.metric_id = @metric AND r.width_s = 60 AND r.slot BETWEEN @foldedLo AND @foldedHi ${serviceCondition})`,
    )
      .pluck()
      .get({
        metric: metricId,
        width,
        lo,
        through,
        foldedLo: (through + 1n) * per,
        // Through the minute of the window's end, as the series query reads (metric-bucket-sql.ts).
        foldedHi: width === 60n ? through : toNs / 60_000_000_000n,
        ...(service !== undefined ? { service } : {}),
      }) as bigint;
    return Number(count);
  }

  /** The newest packed slot of a metric's width in [lo, hi], or null. */
  private packedThrough(metricId: number, widthS: number, lo: bigint, hi: bigint): bigint | null {
    const slot = this.prepare(
      "SELECT max(slot) FROM metric_slot_packs WHERE metric_id = ? AND width_s = ? AND slot BETWEEN ? AND ?",
    )
      .pluck()
      .get(metricId, widthS, lo, hi) as bigint | number | null;
    return slot === null ? null : BigInt(slot);
  }

  metrics(query: MetricListQuery): PageResult<MetricSummaryRecord> {
    const { page } = query;
    const where = ["msl.last_ns >= @from", "ms.first_ns <= @to"];
    const bind: Record<string, unknown> = { from: page.fromNs, to: page.toNs, limit: page.limit + 1 };
    if (query.service !== undefined) {
      where.push("v.name = @service");
      bind.service = query.service;
    }
    if (query.name !== undefined) {
      // LIKE is case-insensitive for ASCII; instr keeps the substring exact.
      where.push("m.name LIKE @like ESCAPE '\\' AND instr(m.name, @name) > 0");
      bind.like = likeAny(query.name);
      bind.name = query.name;
    }
    if (page.after) {
      // The cursor carries the last metric's row id (a cursor's tie-breaker is hex or decimal,
      // never a name); its name is read back here. Should retention delete that metric (its
      // last series trimmed) between two pages, the listing ends there.
      where.push(
        "(m.name > (SELECT name FROM metrics WHERE id = @afterId) OR (m.name = (SELECT name FROM metrics WHERE id = @afterId) AND m.id > @afterId))",
      );
      bind.afterId = Number(page.after.id);
    }
    const rows = this.prepare(
      `SELECT ${IDENTITY_COLUMNS}, json_group_array(DISTINCT v.name) AS services, count(*) AS series,
        max(msl.last_ns) AS last_ns
      FROM metrics m JOIN metric_series ms ON ms.metric_id = m.id JOIN metric_series_last msl ON msl.series_id = ms.id
        JOIN services v ON v.id = ms.service_id
      WHERE ${where.join(" AND ")} GROUP BY m.id ORDER BY m.name, m.id LIMIT @limit`,
    ).all(bind) as (IdentityRow & { services: string; series: bigint; last_ns: bigint })[];
    const more = rows.length > page.limit;
    const kept = rows.slice(0, page.limit);
    const items = kept.map((row) => {
      const metric = identityOf(row);
      const points = this.pointCount(metric.id, page.fromNs, page.toNs, query.service);
      return summaryOf(metric, row.services, row.series, points, row.last_ns);
    });
    const lastRow = kept[kept.length - 1];
    return { items, more, last: lastRow ? { ns: BigInt(lastRow.id), id: String(lastRow.id) } : null };
  }

  metricIdentities(name: string, service?: string): MetricIdentity[] {
    const newest = (where: string) =>
      `(SELECT max(msl.last_ns) FROM metric_series ms JOIN metric_series_last msl ON msl.series_id = ms.id
        WHERE ms.metric_id = m.id ${where}) DESC NULLS LAST`;
    // With a service, its newest first; then, as without one, the newest of all.
    const order = [
      ...(service === undefined ? [] : [newest("AND ms.service_id = (SELECT id FROM services WHERE name = @service)")]),
      newest(""),
      "m.id DESC",
    ];
    const rows = this.prepare(
      `SELECT ${IDENTITY_COLUMNS} FROM metrics m WHERE m.name = @name ORDER BY ${order.join(", ")}`,
    ).all(service === undefined ? { name } : { name, service }) as IdentityRow[];
    return rows.map(identityOf);
  }

  metricInterval(scope: MetricScope): number | null {
    // The quarter hour up to the window's end, of a bounded number of its series: enough points to
    // see an exporter's interval (an SDK's default is a minute), few enough to read in a few ms.
    // Before the window's start too: a window shorter than the interval holds one point or none.
    const from = scope.toNs - INTERVAL_LOOK_NS;
    const series = seriesSql(scope, [], from, false);
    const gaps = this.prepare(
      `WITH ${series.sql}, picked AS (SELECT id FROM sel LIMIT ${INTERVAL_SERIES})
      SELECT q.series_id, q.time_ns - lag(q.time_ns) OVER (PARTITION BY q.series_id ORDER BY q.time_ns)
        FROM metric_points q JOIN picked ON picked.id = q.series_id WHERE q.time_ns BETWEEN @first AND @to`,
    )
      .raw()
      .all(series.bind) as [bigint, bigint | null][];
    const bySeries = new Map<bigint, number[]>();
    for (const [id, gap] of gaps) {
      if (gap === null) continue;
      const list = bySeries.get(id) ?? [];
      list.push(Number(gap) / 1e9);
      bySeries.set(id, list);
    }
    const typical = [...bySeries.values()].map(median);
    return typical.length === 0 ? null : median(typical);
  }

  describeMetric(scope: MetricScope, maxKeys: number, maxValues: number): MetricDetailRecord | null {
    const series = seriesSql(scope, [], scope.fromNs, false);
    const head = this.prepare(
      `WITH ${series.sql} SELECT json_group_array(DISTINCT v.name) AS services, count(*) AS series,
        min(ms.first_ns) AS first_ns, max(msl.last_ns) AS last_ns
      FROM sel JOIN metric_series ms ON ms.id = sel.id JOIN metric_series_last msl ON msl.series_id = ms.id
        JOIN services v ON v.id = ms.service_id`,
    ).get(series.bind) as { services: string; series: bigint; first_ns: bigint | null; last_ns: bigint | null };
    if (head.first_ns === null || head.last_ns === null) return null;
    const values = this.prepare(
      `WITH ${series.sql} SELECT k.key, a.value, count(*) AS n FROM metric_series_attributes a
        JOIN sel ON sel.id = a.series_id JOIN attr_keys k ON k.id = a.key_id
      WHERE ${metricIn(scope, "a.metric_id")} GROUP BY a.key_id, a.value`,
    )
      .raw()
      .all(series.bind) as [string, string, bigint][];
    const byKey = new Map<string, { value: string; series: number }[]>();
    for (const [key, value, n] of values) {
      const list = byKey.get(key) ?? [];
      list.push({ value, series: Number(n) });
      byKey.set(key, list);
    }
    const keySeries = (list: { series: number }[]) => list.reduce((a, b) => a + b.series, 0);
    const attributes = [...byKey]
      .sort(([a, x], [b, y]) => keySeries(y) - keySeries(x) || (a < b ? -1 : a > b ? 1 : 0))
      .slice(0, maxKeys)
      .map(([key, list]) => {
        list.sort((a, b) => b.series - a.series || (a.value < b.value ? -1 : a.value > b.value ? 1 : 0));
        const values = list.slice(0, maxValues).map((v) => ({ value: capText(v.value), series: v.series }));
        return { key, values, more: list.length > maxValues };
      });
    const metric = scope.metric;
    let points = 0;
    for (const id of [metric.id, ...(scope.alsoIds ?? [])])
      points += this.pointCount(id, scope.fromNs, scope.toNs, scope.service);
    return {
      ...summaryOf(metric, head.services, head.series, points, head.last_ns),
      metadata:
        metric.metadata === null ? null : capAttributes(JSON.parse(metric.metadata) as Record<string, PlainValue>),
      firstTime: nsToIso(head.first_ns),
      attributes,
    };
  }

  /**
   * The values of a query whose step is its rollup width: one bucket per slot
   * (metrics/slot-groups.ts), from the packed slots in the range, then the rows of the slots
   * after the last of them; their exemplars to `exemplars` on the way.
   */
  private slotValues(query: MetricBucketQuery, plan: SlotPlan, firstNs: bigint, groups: MetricGroupValues[]): void {
    const { bind } = cellsSql(query, firstNs);
    const firstSlot = Number(bind.slotLo);
    const apply = (slot: number, figuresByGroup: [number, Figures][]) => {
      const bucket = slot - firstSlot;
      for (const [gid, figures] of figuresByGroup) {
        const group = groups[gid];
        if (!group) continue;
        const value = slotValue(plan.mode, figures, plan.scale);
        if (bucket >= 0 && bucket < group.values.length && value !== null) group.values[bucket] = value;
        group.resets += figures.resets;
      }
    };
    let rowsFrom = BigInt(bind.slotLo as bigint);
    const folded = BigInt(FOLDED_WIDTHS_S[0]);
    const width = BigInt(query.source.kind === "rollups" ? query.source.widthS : FOLDED_WIDTHS_S[0]);
    if (width === folded) {
      const slots = this.prepare(slotSql(plan))
        .raw()
        .all({ ...bind, slotLo: rowsFrom }) as [bigint, string][];
      for (const [slot, json] of slots) apply(Number(slot), slotFigures(json));
      return;
    }
    for (const row of this.prepare(packedSlotsSql(plan)).raw().all(bind) as PackedSlotRow[]) {
      apply(Number(row[0]), packedSlotFigures(row, plan, this.seriesGroups, this.exemplars));
      rowsFrom = BigInt(row[0]) + 1n;
    }
    // The slots after the packed ones, from the 60 s rows they are merged from when packed.
    const slotHi = BigInt(bind.slotHi as bigint);
    if (rowsFrom > slotHi) return;
    const per = width / folded;
    if (query.agg !== "last") {
      // Each minute's figures by group, added up per slot (sums, counts, least, greatest).
      const minutes = this.prepare(slotSql(plan))
        .raw()
        .all({ metric: bind.metric, width: folded, slotLo: rowsFrom * per, slotHi: bind.foldedHi }) as [
        bigint,
        string,
      ][];
      let slot: bigint | null = null;
      let bySlot: (Figures | undefined)[] = [];
      const done = () => {
        if (slot !== null)
          apply(
            Number(slot),
            bySlot.flatMap((f, gid) => (f ? [[gid, f] as [number, Figures]] : [])),
          );
      };
      for (const [minute, json] of minutes) {
        const at = BigInt(minute) / per;
        if (at !== slot) {
          done();
          slot = at;
          bySlot = [];
        }
        for (const [gid, figures] of slotFigures(json)) bySlot[gid] = combineFigures(plan.mode, bySlot[gid], figures);
      }
      done();
      return;
    }
    // Each series' newest value: the general path picks each series' newest row per bucket.
    this.generalValues(query, firstNs, groups, rowsFrom - 1n, rowsFrom);
  }

  /**
   * The values of the general path (metrics/metric-bucket-sql.ts) into `groups`, the width's
   * rows read up to `rowsThrough` and 60 s rows after it, from `slotLo` on when given (the
   * slots before it answered already); the exemplars of the same slots to `exemplars`.
   */
  private generalValues(
    query: MetricBucketQuery,
    firstNs: bigint,
    groups: MetricGroupValues[],
    rowsThrough?: bigint,
    slotLo?: bigint,
  ): void {
    const values = bucketSql(query, firstNs, rowsThrough);
    const bind = slotLo === undefined ? values.bind : { ...values.bind, slotLo };
    for (const [gid, b, value, resets] of this.prepare(values.sql).raw().all(bind) as unknown[][]) {
      if (gid === null) continue;
      const group = groups[Number(gid)] as MetricGroupValues;
      const bucket = Number(b);
      if (bucket >= 0 && bucket < group.values.length && value !== null) group.values[bucket] = Number(value);
      group.resets += Number(resets ?? 0);
    }
    this.addExemplars(query, firstNs, rowsThrough, slotLo);
  }

  /** The general path's exemplars to `exemplars`, from scans of their own (metrics/exemplar-scan.ts). */
  private addExemplars(query: MetricBucketQuery, firstNs: bigint, rowsThrough?: bigint, slotLo?: bigint): void {
    const { scans, bind, points } = exemplarSql(query, firstNs, rowsThrough);
    for (const scan of scans) {
      // Iterated, not read whole: each row reaches its group before the next is tested.
      const rows = this.prepare(scan)
        .raw()
        .iterate(slotLo === undefined ? bind : { ...bind, slotLo }) as Iterable<unknown[]>;
      readExemplarScan(rows, points, this.seriesGroups, this.exemplars);
    }
  }

  /**
   * The newest bucket's rate, still open at the window's end: the rate now, the sum of its
   * groups' series' rates over a trailing window (metrics/newest-rate.ts), instead of the
   * bucket's increase over the whole step. Every group's value is replaced: 0 where none of its
   * series has a point in the window (a null would let `latest` read an older bucket's rate).
   */
  private newestRate(
    query: MetricBucketQuery,
    window: TrailingWindow,
    groups: MetricGroupValues[],
    seriesGroup: ReadonlyMap<number, number>,
  ): void {
    const bind = { ...metricBinds(query), width: BigInt(FOLDED_WIDTHS_S[0]) };
    const metric = metricIn(query, "metric_id");
    const inWindow = this.prepare(
      `SELECT series_id, coalesce(sum(increase), 0), max(last_ns), sum(points) FROM metric_rollups
        WHERE ${metric} AND width_s = @width AND slot BETWEEN @slotLo AND @slotHi GROUP BY series_id`,
    )
      .raw()
      .all({ ...bind, slotLo: window.slotLo, slotHi: window.slotHi }) as [bigint, number, bigint, bigint][];
    const before = this.prepare(
      `SELECT series_id, max(last_ns) FROM metric_rollups
        WHERE ${metric} AND width_s = @width AND slot BETWEEN @slotLo AND @slotHi GROUP BY series_id`,
    )
      .raw()
      .all({ ...bind, slotLo: window.slotLo - BigInt(TRAILING_MINUTES), slotHi: window.slotLo - 1n }) as [
      bigint,
      bigint,
    ][];
    const baseOf = new Map(before.map(([id, lastNs]) => [Number(id), BigInt(lastNs)]));
    const totals = groups.map(() => 0);
    for (const [id, increase, lastNs, points] of inWindow) {
      const gid = seriesGroup.get(Number(id));
      if (gid === undefined) continue;
      const series = {
        increase,
        lastNs: BigInt(lastNs),
        points: Number(points),
        baseNs: baseOf.get(Number(id)) ?? null,
      };
      totals[gid] = (totals[gid] ?? 0) + seriesRate(series, window, query.toNs);
    }
    groups.forEach((group, gid) => {
      group.values[group.values.length - 1] = totals[gid] ?? 0;
    });
  }

  /**
   * The newest bucket's `last`, the value now (metrics/newest-last.ts): the sum of its groups'
   * series' newest values since `fromNs`, each while within its reach; null for a group none of
   * whose series has one. Read from the points whatever the query's source (a rollup row's newest
   * point may lie ahead of now, which the bucket query leaves out): the writer has written what
   * it held before a read. Returns the series with a value now.
   */
  private newestLast(
    query: MetricBucketQuery,
    fromNs: bigint,
    groups: MetricGroupValues[],
    seriesGroup: ReadonlyMap<number, number>,
  ): Set<number> {
    const scope = seriesSql(query, [], fromNs, false);
    // Each series' newest point, with its first time and its points in the minutes read.
    const rows = this.prepare(
      `WITH ${scope.sql} SELECT id, v, t, first, n FROM (SELECT q.series_id AS id, q.value AS v, q.time_ns AS t,
          row_number() OVER (PARTITION BY q.series_id ORDER BY q.time_ns DESC) AS rn,
          min(q.time_ns) OVER (PARTITION BY q.series_id) AS first, count(*) OVER (PARTITION BY q.series_id) AS n
        FROM metric_points q JOIN sel ON sel.id = q.series_id
        WHERE q.time_ns BETWEEN @first AND @to AND ${RECORDED_POINT}) WHERE rn = 1`,
    )
      .raw()
      .all(scope.bind) as [bigint, number, bigint, bigint, bigint][];
    const totals: (number | null)[] = groups.map(() => null);
    const valued = new Set<number>();
    for (const [id, value, lastNs, firstNs, points] of rows) {
      const gid = seriesGroup.get(Number(id));
      if (gid === undefined) continue;
      const now = valueNow(
        { value: Number(value), lastNs: BigInt(lastNs), firstNs: BigInt(firstNs), points: Number(points) },
        query.toNs,
      );
      if (now === null) continue;
      totals[gid] = (totals[gid] ?? 0) + now;
      valued.add(Number(id));
    }
    groups.forEach((group, gid) => {
      group.values[group.values.length - 1] = totals[gid] ?? null;
    });
    return valued;
  }

  /** For a query of a packed width: its newest packed slot in range, after which its 60 s rows are read. */
  private rowsThrough(query: MetricBucketQuery, firstNs: bigint): bigint | undefined {
    if (query.source.kind !== "rollups" || query.source.widthS === FOLDED_WIDTHS_S[0]) return undefined;
    const width = BigInt(query.source.widthS) * 1_000_000_000n;
    const lo = firstNs / width;
    // Read as one, identities are packed as far as the least packed of them.
    let through: bigint | undefined;
    for (const id of [query.metric.id, ...(query.alsoIds ?? [])]) {
      const packed = this.packedThrough(id, query.source.widthS, lo, query.toNs / width) ?? lo - 1n;
      if (through === undefined || packed < through) through = packed;
    }
    return through;
  }

  metricBuckets(query: MetricBucketQuery): MetricGroupValues[] {
    const starts = bucketStarts(query.fromNs, query.toNs, query.stepMs);
    const firstNs = starts[0] ?? query.fromNs;
    const width = query.groupBy.length;
    const text = (v: unknown) => (v === null || v === undefined ? null : String(v));
    // A rate's newest bucket reads a trailing window that may start before the first bucket
    // (a short lookback): its series are in the scope too, or their increases would be lost.
    const newest = starts[starts.length - 1];
    const trailing =
      query.agg === "rate" && newest !== undefined ? trailingWindow(newest, query.stepMs, query.toNs) : null;
    // The newest bucket's `last` reads the last minutes too (metrics/newest-last.ts).
    const lastFrom = query.agg === "last" ? query.toNs - MAX_LAST_AGE_NS : null;
    const earliest = trailing?.fromNs ?? lastFrom;
    const seriesFrom = earliest !== null && earliest < firstNs ? earliest : firstNs;
    // The scope's series with their group values, numbered by group for obs_series_group().
    const series = seriesSql(query, query.groupBy, seriesFrom, false);
    const columns = ["id", ...series.groups].join(", ");
    // With `last`, whether each series has a point in the window: one before it counts only with a value now.
    const inWindow =
      lastFrom === null ? "1" : "(SELECT last_ns >= @window FROM metric_series_last WHERE series_id = sel.id)";
    const rows = this.prepare(`WITH ${series.sql} SELECT ${columns}, ${inWindow} FROM sel`)
      .raw()
      .all(lastFrom === null ? series.bind : { ...series.bind, window: firstNs }) as unknown[][];
    const beforeOnly = new Set<number>();
    const groups: MetricGroupValues[] = [];
    const byKey = new Map<string, number>();
    const seriesGroup = new Map<number, number>();
    for (const row of rows) {
      const key = row.slice(1, width + 1).map(text);
      const id = JSON.stringify(key);
      let gid = byKey.get(id);
      if (gid === undefined) {
        gid = groups.length;
        byKey.set(id, gid);
        groups.push({ key, values: starts.map(() => null), series: 0, resets: 0, exemplars: [] });
      }
      if (Number(row[width + 1]) === 1) (groups[gid] as MetricGroupValues).series += 1;
      else beforeOnly.add(Number(row[0]));
      seriesGroup.set(Number(row[0]), gid);
    }
    if (groups.length === 0) return [];
    this.seriesGroups.set(seriesGroup);
    this.exemplars.clear();
    try {
      const plan = slotPlan(query);
      if (plan) this.slotValues(query, plan, firstNs, groups);
      else this.generalValues(query, firstNs, groups, this.rowsThrough(query, firstNs));
      if (trailing !== null) this.newestRate(query, trailing, groups, seriesGroup);
      if (lastFrom !== null) {
        for (const id of this.newestLast(query, lastFrom, groups, seriesGroup)) {
          if (beforeOnly.has(id)) (groups[seriesGroup.get(id) as number] as MetricGroupValues).series += 1;
        }
      }
      groups.forEach((group, gid) => {
        group.exemplars = [...this.exemplars.of(gid)];
      });
    } finally {
      this.seriesGroups.set(new Map());
      this.exemplars.clear();
    }
    // A group of series before the window only, none with a value now (`last`).
    return groups.filter((group) => group.series > 0);
  }
}

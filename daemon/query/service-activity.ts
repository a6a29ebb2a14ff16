import type Database from "better-sqlite3";
import type { ServiceRecord } from "../../shared/api-records.js";
import { MAX_INSTANT_NS } from "../../shared/query-params.js";
import { nsToIso } from "../../shared/time.js";
import { TRIMMED_THROUGH } from "../store/retention.js";
import { MINUTE_NS, planWindow, slotOf } from "../store/rollup-slots.js";
import { capText } from "./value-cap.js";

type Row = [bigint, bigint | null];

interface Signal {
  /** max(time) per service over raw rows in [from, to). */
  raw: Database.Statement;
  /** max(time) of one service over raw rows in [from, to). */
  rawOf: Database.Statement;
  /** max(newest_ns) per service over the slots of one width starting in [from, to). */
  slots: Database.Statement;
  oldest: Database.Statement;
  trimmed: string;
}

/**
 * Which services have telemetry in a window, and the newest timestamp of each there: a span
 * start, a log time or a metric point's time, never an arrival time. Read from the rollups' newest time per slot;
 * only slots retention may have emptied part of, and a slot whose newest time is past the
 * window's end (spans dated in the future), are read row by row. So the answer costs about
 * the same at any ingest rate: health asks it on every call.
 */
export class ServiceActivity {
  private readonly spans: Signal;
  private readonly logs: Signal;
  private readonly trimmedThrough: Database.Statement;
  /** max(last_ns) per service over the series whose newest point is in [from, to). */
  private readonly seriesNewest: Database.Statement;
  /** Per series with a point in [from, to) but a newer one after: its newest point in [from, to). */
  private readonly seriesBefore: Database.Statement;

  constructor(private readonly db: Database.Database) {
    const signal = (table: string, time: string, rollups: string): Signal => ({
      raw: db
        .prepare(`SELECT service_id, max(${time}) FROM ${table} WHERE ${time} >= ? AND ${time} < ? GROUP BY service_id`)
        .raw(),
      rawOf: db
        .prepare(`SELECT max(${time}) FROM ${table} WHERE ${time} >= ? AND ${time} < ? AND service_id = ?`)
        .pluck(),
      slots: db
        .prepare(
          `SELECT service_id, max(newest_ns) FROM ${rollups} WHERE width = ? AND slot >= ? AND slot < ? GROUP BY service_id`,
        )
        .raw(),
      oldest: db.prepare(`SELECT ${time} FROM ${table} ORDER BY ${time} LIMIT 1`).pluck(),
      trimmed: table === "spans" ? TRIMMED_THROUGH.spans : TRIMMED_THROUGH.logs,
    });
    this.spans = signal("spans", "start_ns", "span_rollups");
    this.logs = signal("logs", "ts_ns", "log_rollups");
    this.trimmedThrough = db.prepare("SELECT value FROM counters WHERE name = ?").pluck();
    this.seriesNewest = db
      .prepare(
        `SELECT ms.service_id, max(msl.last_ns) FROM metric_series_last msl JOIN metric_series ms ON ms.id = msl.series_id
         WHERE msl.last_ns >= ? AND msl.last_ns < ? GROUP BY ms.service_id`,
      )
      .raw();
    this.seriesBefore = db
      .prepare(
        `SELECT ms.service_id,
           (SELECT max(time_ns) FROM metric_points WHERE series_id = ms.id AND time_ns >= ? AND time_ns < ?)
         FROM metric_series ms JOIN metric_series_last msl ON msl.series_id = ms.id
         WHERE msl.last_ns >= ? AND ms.first_ns < ?`,
      )
      .raw();
  }

  /** Per service id: the newest span start, log time or metric point time in [fromNs, toNs]. */
  newest(fromNs: bigint, toNs: bigint): Map<number, bigint> {
    const newest = new Map<number, bigint>();
    // The reads take [from, to + 1): at the last instant a store holds, to + 1 is past what
    // SQLite can bind, so the window ends just before it (a time of exactly 2^63 - 1 ns, in the
    // year 2262, is left out of it).
    const end = toNs < MAX_INSTANT_NS ? toNs + 1n : toNs;
    for (const signal of [this.spans, this.logs]) this.read(signal, fromNs, end, newest);
    this.readMetrics(fromNs, end, newest);
    return newest;
  }

  /**
   * Adds the newest metric point time per service in [lo, hi). A series whose newest point is
   * in the window answers from its row; only a series with points after the window (the
   * window is in the past, or points are dated in the future) is looked up in its points, one
   * seek each. Series are few beside points, so this costs little at any ingest rate.
   */
  private readMetrics(lo: bigint, hi: bigint, into: Map<number, bigint>): void {
    const rows = [...(this.seriesNewest.all(lo, hi) as Row[]), ...(this.seriesBefore.all(lo, hi, hi, hi) as Row[])];
    for (const [serviceId, ns] of rows) {
      const id = Number(serviceId);
      if (ns !== null && ns > (into.get(id) ?? -1n)) into.set(id, ns);
    }
  }

  /** The services with telemetry in the window, by name, last seen at their newest timestamp there. */
  services(window: { fromNs: bigint; toNs: bigint }): ServiceRecord[] {
    const newest = this.newest(window.fromNs, window.toNs);
    if (newest.size === 0) return [];
    const names = this.db
      .prepare("SELECT id, name FROM services WHERE id IN (SELECT value FROM json_each(?))")
      .raw()
      .all(JSON.stringify([...newest.keys()])) as [bigint, string][];
    return names
      .sort(([, a], [, b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([id, name]) => ({ name: capText(name), lastSeenAt: nsToIso(newest.get(Number(id)) as bigint) }));
  }

  /** Adds the newest time per service in [lo, hi) to `into`. */
  private read(signal: Signal, lo: bigint, hi: bigint, into: Map<number, bigint>): void {
    const add = (serviceId: bigint | number, ns: bigint | null) => {
      const id = Number(serviceId);
      if (ns !== null && ns > (into.get(id) ?? -1n)) into.set(id, ns);
    };
    const oldest = signal.oldest.get() as bigint | undefined;
    if (oldest === undefined) return;
    // Slots after every row retention deleted lost nothing (see RollupWindowReader.plan):
    // their newest times are those of stored rows.
    const trimmed = (this.trimmedThrough.get(signal.trimmed) as bigint | undefined) ?? 0n;
    const slotsFrom = trimmed + 1n;
    const plan = planWindow(lo, hi, slotsFrom);
    for (const range of plan.slots) {
      for (const [serviceId, ns] of signal.slots.all(range.width, range.from, range.to) as Row[]) add(serviceId, ns);
    }
    for (const range of plan.raw) {
      // A part of one minute slot, at the window's edge: the slot's newest time per service is
      // the newest in the part when it falls inside it, and there is none when it falls before.
      const slot = slotOf(range.from, MINUTE_NS);
      if (slot < slotsFrom || range.to > slot + MINUTE_NS) {
        for (const [serviceId, ns] of signal.raw.all(range.from, range.to) as Row[]) add(serviceId, ns);
        continue;
      }
      for (const [serviceId, ns] of signal.slots.all(MINUTE_NS, slot, slot + 1n) as Row[]) {
        if (ns === null || ns < range.from) continue;
        if (ns < range.to) add(serviceId, ns);
        // Newer than the window's end (dated in the future): read this service's rows of the part.
        else add(serviceId, signal.rawOf.get(range.from, range.to, serviceId) as bigint | null);
      }
    }
  }
}

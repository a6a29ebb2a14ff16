import type Database from "better-sqlite3";
import { MAX_POINTS_COUNTED } from "../audit/audit-model.js";
import { NO_RECORDED_VALUE } from "../store/metric-rollup.js";

/** Metric activity of one service in a window (from, to]. */
export interface ServiceMetricWindow {
  /** Its series with at least one point in the window. */
  series: number;
  /** The newest point time in the window. */
  newestNs: bigint;
}

type Row = [bigint, bigint, bigint];

/** The points a service sent: not those standing for missing data. */
const SENT = `AND (mp.flags & ${NO_RECORDED_VALUE}) = 0`;

/**
 * Which services sent metric points in a window, read from metric_points' primary key
 * (series_id, time_ns): one seek per series for its newest point in the window, so the cost
 * follows the number of series, not of points. Points are counted only on request (for the
 * services the audit reports), and then at most MAX_POINTS_COUNTED of them.
 *
 * A point flagged NO_RECORDED_VALUE is not the service's telemetry: it says a series stopped
 * (a Collector's Prometheus receiver sends one per series of a target that went away), so a
 * service whose window holds nothing else is silent in it.
 */
export class MetricActivityReader {
  private readonly perService: Database.Statement;
  private readonly pointsOf: Database.Statement;

  constructor(
    db: Database.Database,
    private readonly serviceId: bigint | null,
  ) {
    const ofService = serviceId === null ? "" : "WHERE ms.service_id = @service";
    this.perService = db
      .prepare(
        `SELECT service_id, COUNT(*), MAX(newest) FROM (
           SELECT ms.service_id AS service_id,
             (SELECT mp.time_ns FROM metric_points mp
              WHERE mp.series_id = ms.id AND mp.time_ns > @from AND mp.time_ns <= @to ${SENT}
              ORDER BY mp.time_ns DESC LIMIT 1) AS newest
           FROM metric_series ms ${ofService}
         ) WHERE newest IS NOT NULL GROUP BY service_id ORDER BY service_id`,
      )
      .raw();
    this.pointsOf = db
      .prepare(
        `SELECT COUNT(*) FROM (
           SELECT 1 FROM metric_series ms JOIN metric_points mp ON mp.series_id = ms.id
           WHERE ms.service_id = @service AND mp.time_ns > @from AND mp.time_ns <= @to ${SENT}
           LIMIT ${MAX_POINTS_COUNTED})`,
      )
      .pluck();
  }

  /** Per service id, its metric activity in (from, to]; services without a point are absent. */
  services(from: bigint, to: bigint): Map<number, ServiceMetricWindow> {
    const bind = { from, to, ...(this.serviceId === null ? {} : { service: this.serviceId }) };
    const rows = this.perService.all(bind) as Row[];
    return new Map(rows.map(([id, series, newest]) => [Number(id), { series: Number(series), newestNs: newest }]));
  }

  /** The service's points in (from, to], at most MAX_POINTS_COUNTED. */
  points(serviceId: number, from: bigint, to: bigint): number {
    return Number(this.pointsOf.get({ service: serviceId, from, to }));
  }
}

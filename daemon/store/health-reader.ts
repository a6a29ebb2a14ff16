import type Database from "better-sqlite3";
import { ServiceActivity } from "../query/service-activity.js";

export interface StoreCounts {
  services: number;
  traces: number;
  spans: number;
  logs: number;
  /** Metric time series stored (resource + scope + metric + point attributes). */
  series: number;
  /** Metric data points stored. */
  points: number;
  /**
   * The newest own time of a record stored (span start, log or point time; one past its arrival
   * as its arrival), in nanoseconds; null when nothing was ever stored.
   */
  latestNs: bigint | null;
}

/**
 * Row counts from the counters the writer maintains: constant time, whatever the store's size.
 * The services count is of those with telemetry in a recent window, from the rollups' newest
 * time per slot (query/service-activity.ts): about the same cost at any ingest rate.
 */
export class HealthReader {
  private readonly counters: Database.Statement;
  private readonly oldestStatement: Database.Statement;
  private readonly activity: ServiceActivity;

  constructor(db: Database.Database) {
    this.counters = db.prepare("SELECT name, value FROM counters").raw();
    // Each the first entry of an index on the time (spans_by_start, logs_by_ts, metric_series_by_first).
    this.oldestStatement = db
      .prepare(
        `SELECT (SELECT min(start_ns) FROM spans), (SELECT min(ts_ns) FROM logs),
          (SELECT min(first_ns) FROM metric_series)`,
      )
      .raw();
    this.activity = new ServiceActivity(db);
  }

  /** The oldest span start, log record time and metric point time stored, in ns; null when none. */
  oldest(): { spans: bigint | null; logs: bigint | null; points: bigint | null } {
    const [spans, logs, points] = this.oldestStatement.get() as (bigint | null)[];
    return { spans: spans ?? null, logs: logs ?? null, points: points ?? null };
  }

  /** How many services have a span, log or metric point whose own timestamp is in the last `lookbackMs` up to `nowNs`. */
  servicesSeen(nowNs: bigint, lookbackMs: number): number {
    return this.activity.newest(nowNs - BigInt(lookbackMs) * 1_000_000n, nowNs).size;
  }

  counts(): StoreCounts {
    const values = new Map<string, bigint>();
    for (const [name, value] of this.counters.all() as [string, bigint][]) values.set(name, value);
    const latest = values.get("latest_ns") ?? 0n;
    return {
      services: Number(values.get("services") ?? 0n),
      traces: Number(values.get("traces") ?? 0n),
      spans: Number(values.get("spans") ?? 0n),
      logs: Number(values.get("logs") ?? 0n),
      series: Number(values.get("series") ?? 0n),
      points: Number(values.get("points") ?? 0n),
      latestNs: latest > 0n ? latest : null,
    };
  }
}

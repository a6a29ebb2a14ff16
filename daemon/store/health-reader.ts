import type Database from "better-sqlite3";

export interface StoreCounts {
  services: number;
  traces: number;
  spans: number;
  logs: number;
  /** The newest telemetry timestamp stored, in nanoseconds; null when the store is empty. */
  latestNs: bigint | null;
}

/** Row counts from the counters the writer maintains: constant time, whatever the store's size. */
export class HealthReader {
  private readonly counters: Database.Statement;

  constructor(db: Database.Database) {
    this.counters = db.prepare("SELECT name, value FROM counters").raw();
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
      latestNs: latest > 0n ? latest : null,
    };
  }
}

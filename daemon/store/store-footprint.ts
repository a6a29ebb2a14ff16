import type Database from "better-sqlite3";

/** The signals whose records the footprint is counted per. */
export type FootprintSignal = "spans" | "logs" | "points";

/**
 * Which signal a table's pages belong to: its records, their postings, summaries and rollups.
 * Tables shared by every signal (dictionaries, resources, services, counters, the forwarding
 * outbox) belong to none, so a signal's bytes per record are what its own tables cost.
 */
export function signalOfTable(table: string): FootprintSignal | null {
  if (/^(spans|span_|traces|trace_|orphan_spans)/.test(table)) return "spans";
  if (/^(logs|log_)/.test(table)) return "logs";
  if (/^metric/.test(table)) return "points";
  return null;
}

/** Bytes of each signal's tables and indexes, and its record count, read together. */
export interface StoreFootprint {
  bytes: Record<FootprintSignal, number>;
  records: Record<FootprintSignal, number>;
}

/**
 * Measures the store's pages per signal (SQLite's dbstat: every page of every table and index
 * is visited, about a second for a gigabyte, so this runs off the HTTP and query threads) and
 * the record counts the writer keeps, in one read transaction so the two agree.
 */
export function measureFootprint(db: Database.Database): StoreFootprint {
  return db.transaction(() => {
    const tableOf = new Map(
      (
        db.prepare("SELECT name, tbl_name FROM sqlite_schema WHERE type IN ('table', 'index')").all() as {
          name: string;
          tbl_name: string;
        }[]
      ).map((row) => [row.name, row.tbl_name]),
    );
    const bytes: Record<FootprintSignal, number> = { spans: 0, logs: 0, points: 0 };
    const pages = db
      .prepare("SELECT name, sum(pgsize) AS bytes FROM dbstat WHERE aggregate = 1 GROUP BY name")
      .all() as {
      name: string;
      bytes: number | bigint;
    }[];
    for (const row of pages) {
      const signal = signalOfTable(tableOf.get(row.name) ?? row.name);
      if (signal !== null) bytes[signal] += Number(row.bytes);
    }
    const counters = new Map(
      (
        db.prepare("SELECT name, value FROM counters WHERE name IN ('spans', 'logs', 'points')").all() as {
          name: string;
          value: number | bigint;
        }[]
      ).map((row) => [row.name, Number(row.value)]),
    );
    return {
      bytes,
      records: {
        spans: counters.get("spans") ?? 0,
        logs: counters.get("logs") ?? 0,
        points: counters.get("points") ?? 0,
      },
    };
  })();
}

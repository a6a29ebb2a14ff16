import type Database from "better-sqlite3";
import type { ForwardSignal } from "./otlp-encoding.js";

/** One committed request waiting in the outbox. */
export interface OutboxEntry {
  id: number;
  signal: ForwardSignal;
  format: number;
  records: number;
  receivedNs: bigint;
  body: Uint8Array;
}

/** What one destination has not delivered yet. */
export interface OutboxLag {
  records: number;
  /** The oldest waiting request's receive time; null when nothing waits. */
  oldestNs: bigint | null;
}

/** A destination's stored position and counters (forward_destinations). */
export interface StoredDestination {
  throughId: number;
  sent: number;
  retried: number;
  dropped: number;
}

/**
 * Reads the forwarding outbox on the forwarder's own read connection: what was committed, in
 * commit order. Rows never change once written, and ids only grow, so "after id N" is exactly
 * what a destination at N has not seen.
 */
export class OutboxReader {
  private readonly stmt: Record<"after" | "lag" | "destination", Database.Statement>;

  constructor(db: Database.Database) {
    this.stmt = {
      after: db.prepare(
        "SELECT id, signal, format, records, received_ns AS receivedNs, body FROM forward_outbox WHERE id > ? ORDER BY id LIMIT ?",
      ),
      // The first waiting row and the newest: the running totals give the records between.
      lag: db.prepare(
        `SELECT (SELECT records_total FROM forward_outbox ORDER BY id DESC LIMIT 1) - w.records_total + w.records AS records,
           w.received_ns AS oldestNs FROM (SELECT records, records_total, received_ns FROM forward_outbox WHERE id > ? ORDER BY id LIMIT 1) AS w`,
      ),
      destination: db.prepare(
        "SELECT through_id AS throughId, sent, retried, dropped FROM forward_destinations WHERE destination = ?",
      ),
    };
    // Times stay exact as bigints; ids and counts fit in numbers.
    this.stmt.after.safeIntegers(true);
    this.stmt.lag.safeIntegers(true);
    this.stmt.destination.safeIntegers(false);
  }

  /**
   * The requests after `afterId`, oldest first: at most `maxRows`, and no more than `maxBytes`
   * of bodies (but always at least one, however large).
   */
  after(afterId: number, maxRows: number, maxBytes: number): OutboxEntry[] {
    const entries: OutboxEntry[] = [];
    let bytes = 0;
    for (const row of this.stmt.after.iterate(afterId, maxRows) as Iterable<Record<string, unknown>>) {
      const body = row.body as Uint8Array;
      if (entries.length > 0 && bytes + body.byteLength > maxBytes) break;
      bytes += body.byteLength;
      entries.push({
        id: Number(row.id),
        signal: row.signal as ForwardSignal,
        format: Number(row.format),
        records: Number(row.records),
        receivedNs: row.receivedNs as bigint,
        body,
      });
    }
    return entries;
  }

  lag(afterId: number): OutboxLag {
    const row = this.stmt.lag.get(afterId) as { records: bigint; oldestNs: bigint } | undefined;
    return row === undefined
      ? { records: 0, oldestNs: null }
      : { records: Number(row.records), oldestNs: row.oldestNs };
  }

  destination(key: string): StoredDestination | undefined {
    return this.stmt.destination.get(key) as StoredDestination | undefined;
  }
}

import type Database from "better-sqlite3";
import type { RetentionTrimmer } from "../signals/signal-module.js";

/** The stored encodings of an outbox body (forward_outbox.format). */
export const OUTBOX_FORMAT = { protobuf: 0, json: 1 } as const;

/**
 * Outbox rows retention deletes per transaction: a row is a whole request (up to the body cap),
 * where a signal's row is one record.
 */
const ROWS_PER_TRIM = 64;

interface OutboxRow {
  id: number;
  records: number;
}

/** What the forwarder reports of one destination, applied by the writer thread. */
export interface ForwardProgress {
  destination: string;
  /** Every outbox row up to this id was delivered or dropped. */
  throughId: number;
  sent: number;
  retried: number;
  dropped: number;
}

/**
 * The writer's side of forwarding (migrations/v009-forward-outbox.ts): appends each accepted
 * request to the outbox in the transaction that stores its records, records how far each
 * destination has delivered, and deletes what every destination has passed. Retention trims it
 * like a signal (the RetentionTrimmer contract), and every record it deletes before a
 * destination delivered it is counted in that destination's `dropped`.
 */
export class ForwardOutbox implements RetentionTrimmer {
  private readonly stmt: Record<string, Database.Statement>;

  /** `destinations`: the keys configured now (shared/forward-settings.ts destinationKey). */
  constructor(
    private readonly db: Database.Database,
    destinations: readonly string[],
  ) {
    this.stmt = {
      append: db.prepare(
        "INSERT INTO forward_outbox (signal, format, records, received_ns, body) VALUES (?, ?, ?, ?, ?)",
      ),
      progress: db.prepare(
        `UPDATE forward_destinations SET through_id = max(through_id, @throughId), sent = sent + @sent,
           retried = retried + @retried, dropped = dropped + @dropped WHERE destination = @destination`,
      ),
      release: db.prepare(
        "DELETE FROM forward_outbox WHERE id <= (SELECT coalesce(min(through_id), 9223372036854775807) FROM forward_destinations)",
      ),
      older: db.prepare("SELECT id, records FROM forward_outbox WHERE received_ns < ? ORDER BY id LIMIT ?"),
      first: db.prepare("SELECT id, records FROM forward_outbox ORDER BY id LIMIT ?"),
      oldest: db.prepare("SELECT received_ns FROM forward_outbox ORDER BY id LIMIT 1").pluck(),
      deleteThrough: db.prepare("DELETE FROM forward_outbox WHERE id <= ?"),
      // What each destination had not delivered of the rows deleted: counted as dropped.
      countDropped: db.prepare(
        `UPDATE forward_destinations SET dropped = dropped + coalesce((SELECT sum(records) FROM forward_outbox
           WHERE id > forward_destinations.through_id AND id <= @last), 0),
           through_id = max(through_id, @last)`,
      ),
    };
    for (const statement of Object.values(this.stmt)) statement.safeIntegers(false);
    this.stmt.oldest!.safeIntegers(true);
    this.sync(destinations);
  }

  /**
   * Keeps only the configured destinations. A new one starts at the newest row: it is sent
   * what is accepted from now on (what was stored before is the local history, not an outbox).
   * With none configured the outbox is emptied, so no old row waits for a destination that is
   * gone.
   */
  private sync(destinations: readonly string[]): void {
    this.db.transaction(() => {
      const known = new Set(this.db.prepare("SELECT destination FROM forward_destinations").pluck().all() as string[]);
      const wanted = new Set(destinations);
      for (const key of known) {
        if (!wanted.has(key)) this.db.prepare("DELETE FROM forward_destinations WHERE destination = ?").run(key);
      }
      const newest =
        Number(this.db.prepare("SELECT seq FROM sqlite_sequence WHERE name = 'forward_outbox'").pluck().get() ?? 0) ||
        0;
      for (const key of wanted) {
        if (!known.has(key)) {
          this.db.prepare("INSERT INTO forward_destinations (destination, through_id) VALUES (?, ?)").run(key, newest);
        }
      }
      if (wanted.size === 0) this.db.prepare("DELETE FROM forward_outbox").run();
      else this.stmt.release!.run();
    })();
  }

  /** Adds one accepted request. Call inside the transaction that stores its records. */
  append(signal: string, format: number, records: number, receivedNs: bigint, body: Uint8Array): void {
    this.stmt.append!.run(signal, format, records, receivedNs, body);
  }

  /** Applies what the forwarder reported, and deletes the rows every destination has passed. */
  applyProgress(progress: readonly ForwardProgress[]): void {
    this.db.transaction(() => {
      for (const p of progress) this.stmt.progress!.run(p);
      this.stmt.release!.run();
    })();
  }

  trimOlder(cutoffNs: bigint, limit: number): number {
    return this.drop(this.stmt.older!.all(cutoffNs, Math.min(limit, ROWS_PER_TRIM)) as OutboxRow[]);
  }

  trimOldest(limit: number): number {
    return this.drop(this.stmt.first!.all(Math.min(limit, ROWS_PER_TRIM)) as OutboxRow[]);
  }

  /** The time the oldest waiting request was received. */
  oldest(): bigint | undefined {
    return this.stmt.oldest!.get() as bigint | undefined;
  }

  /** Deletes rows (the oldest, in id order), counting what destinations had not delivered. */
  private drop(rows: OutboxRow[]): number {
    const last = rows.at(-1);
    if (last === undefined) return 0;
    this.stmt.countDropped!.run({ last: last.id });
    this.stmt.deleteThrough!.run(last.id);
    return rows.length;
  }
}

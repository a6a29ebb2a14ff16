import type Database from "better-sqlite3";
import type { RetentionTrimmer } from "../signals/signal-module.js";

/** The stored encodings of an outbox body (forward_outbox.format). */
export const OUTBOX_FORMAT = { protobuf: 0, json: 1 } as const;

/**
 * Outbox rows retention deletes per transaction: a row is a whole request (up to the body cap),
 * where a signal's row is one record.
 */
const ROWS_PER_TRIM = 64;

interface StoredRow {
  id: bigint;
  records: bigint;
  received_ns: bigint;
}

/** What the forwarder reports of one destination's round, applied by the writer thread. */
export interface ForwardProgress {
  destination: string;
  /** Every outbox row up to this id was delivered or dropped. */
  throughId: number;
  /** Failed attempts that were retried. */
  retried: number;
  /**
   * Each row of the round: [id, records, 1 delivered or 0 dropped]. Rows that retention deleted
   * (and counted as dropped) while the round was under way are not counted again.
   */
  rows: [number, number, 0 | 1][];
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
  /** Records appended so far (forward_outbox.records_total of the newest row). */
  private total: number;

  /**
   * `destinations`: the keys configured now (shared/forward-settings.ts destinationKey).
   * `onNotice`: told of backlog forgotten with a destination no longer configured.
   */
  constructor(
    private readonly db: Database.Database,
    destinations: readonly string[],
    onNotice: (line: string) => void = () => {},
  ) {
    this.stmt = {
      append: db.prepare(
        "INSERT INTO forward_outbox (signal, format, records, records_total, received_ns, body) VALUES (?, ?, ?, ?, ?, ?)",
      ),
      position: db.prepare("SELECT through_id FROM forward_destinations WHERE destination = ?").pluck(),
      progress: db.prepare(
        `UPDATE forward_destinations SET through_id = max(through_id, @throughId), sent = sent + @sent,
           retried = retried + @retried, dropped = dropped + @dropped WHERE destination = @destination`,
      ),
      release: db.prepare(
        "DELETE FROM forward_outbox WHERE id <= (SELECT coalesce(min(through_id), 9223372036854775807) FROM forward_destinations)",
      ),
      // Ids follow the order requests were committed, and so, within a commit's moment, the
      // order they were received: the oldest are the first, read along the key, never scanned.
      first: db.prepare("SELECT id, records, received_ns FROM forward_outbox ORDER BY id LIMIT ?"),
      oldest: db.prepare("SELECT received_ns FROM forward_outbox ORDER BY id LIMIT 1").pluck(),
      newestTotal: db.prepare("SELECT records_total FROM forward_outbox ORDER BY id DESC LIMIT 1").pluck(),
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
    this.stmt.first!.safeIntegers(true);
    this.total = Number(this.stmt.newestTotal!.get() ?? 0);
    this.sync(destinations, onNotice);
  }

  /**
   * Keeps the configured destinations. A new one starts at the newest row: it is sent what is
   * accepted from now on (what was stored before is the local history, not a backlog). One no
   * longer configured is forgotten, and what it had not received is said. With none configured
   * (a collector started without --forward, as `obs setup agentcli` starts one) nothing is
   * changed: what waits is sent when the destination is configured again, or trimmed by
   * retention and counted as dropped.
   */
  private sync(destinations: readonly string[], onNotice: (line: string) => void): void {
    if (destinations.length === 0) return;
    this.db.transaction(() => {
      const known = this.db.prepare("SELECT destination, through_id FROM forward_destinations").all() as {
        destination: string;
        through_id: bigint;
      }[];
      const wanted = new Set(destinations);
      for (const { destination, through_id } of known) {
        if (wanted.has(destination)) continue;
        const waiting = Number(
          this.db.prepare("SELECT coalesce(sum(records), 0) FROM forward_outbox WHERE id > ?").pluck().get(through_id),
        );
        this.db.prepare("DELETE FROM forward_destinations WHERE destination = ?").run(destination);
        if (waiting > 0) {
          onNotice(
            `obsd: forwarding to ${destination} is no longer configured; ${waiting} records it had not received are not sent`,
          );
        }
      }
      const newest = Number(
        this.db.prepare("SELECT seq FROM sqlite_sequence WHERE name = 'forward_outbox'").pluck().get() ?? 0,
      );
      const present = new Set(known.map((row) => row.destination));
      for (const key of wanted) {
        if (!present.has(key)) {
          this.db.prepare("INSERT INTO forward_destinations (destination, through_id) VALUES (?, ?)").run(key, newest);
        }
      }
      this.stmt.release!.run();
    })();
  }

  /** Adds one accepted request. Call inside the transaction that stores its records. */
  append(signal: string, format: number, records: number, receivedNs: bigint, body: Uint8Array): void {
    this.stmt.append!.run(signal, format, records, this.total + records, receivedNs, body);
    this.total += records;
  }

  /** After a rollback: the running total is read back from what was committed. */
  forget(): void {
    this.total = Number(this.stmt.newestTotal!.get() ?? 0);
  }

  /** Applies what the forwarder reported, and deletes the rows every destination has passed. */
  applyProgress(progress: readonly ForwardProgress[]): void {
    this.db.transaction(() => {
      for (const p of progress) {
        const stored = Number(this.stmt.position!.get(p.destination) ?? 0);
        let sent = 0;
        let dropped = 0;
        for (const [id, records, delivered] of p.rows) {
          if (id <= stored) continue;
          if (delivered === 1) sent += records;
          else dropped += records;
        }
        this.stmt.progress!.run({
          destination: p.destination,
          throughId: p.throughId,
          retried: p.retried,
          sent,
          dropped,
        });
      }
      this.stmt.release!.run();
    })();
  }

  trimOlder(cutoffNs: bigint, limit: number): number {
    const rows = this.stmt.first!.all(Math.min(limit, ROWS_PER_TRIM)) as StoredRow[];
    const old = rows.findIndex((row) => row.received_ns >= cutoffNs);
    return this.drop(old === -1 ? rows : rows.slice(0, old));
  }

  trimOldest(limit: number): number {
    return this.drop(this.stmt.first!.all(Math.min(limit, ROWS_PER_TRIM)) as StoredRow[]);
  }

  /** The time the oldest waiting request was received. */
  oldest(): bigint | undefined {
    return this.stmt.oldest!.get() as bigint | undefined;
  }

  /** Trimmed in the order received: the oldest waiting request is the next to go. */
  nextOldest(): bigint | undefined {
    return this.oldest();
  }

  /** Deletes rows (the oldest, in id order), counting what destinations had not delivered. */
  private drop(rows: StoredRow[]): number {
    const last = rows.at(-1);
    if (last === undefined) return 0;
    const id = Number(last.id);
    this.stmt.countDropped!.run({ last: id });
    this.stmt.deleteThrough!.run(id);
    return rows.length;
  }
}

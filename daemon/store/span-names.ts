import type Database from "better-sqlite3";
import { dictionaryBoundFor } from "./attribute-values.js";

/**
 * Span names kept once (`span_names`, schema version 19): spans and trace summaries name theirs
 * by id. Names are few by design (OpenTelemetry asks for names of low cardinality), but a
 * client may send a new one per span, and retention never deletes a name (its id is never
 * reused, as attribute keys' are not). So the table is bounded as the attribute value
 * dictionary is (`dictionaryBoundFor`, at most 50,000 names, fewer under a small size cap), and
 * a name longer than MAX_SPAN_NAME_BYTES never enters it: such a name stays in the row
 * (`spans.name`, `traces.root_name`), its id NULL.
 *
 * Each name is kept one way only, so that readers may group by the stored form: once a name
 * was turned away for want of room, the table takes no new name again (`meta` remembers it,
 * in the transaction that stored the name in its row), even if a larger cap would make room.
 * For the same reason MAX_SPAN_NAME_BYTES may not change without a migration: a name on one
 * side of it in stored rows would be kept the other way in new ones.
 */
export const MAX_SPAN_NAME_BYTES = 256;
const CLOSED_KEY = "span_names_closed";
/** Names whose form the writer remembers; past this they are all forgotten (a miss is one lookup). */
const MEMO_CAPACITY = 10_000;
/** In the memo: the name is kept in rows. */
const IN_ROWS = -1;

export class SpanNames {
  private readonly memo = new Map<string, number>();
  /** Names in the table, and whether it takes no more; read when first needed after a reset. */
  private count: number | null = null;
  private closed: boolean | null = null;
  private readonly bound: number;
  private readonly stmt: Record<"insert" | "select" | "count" | "isClosed" | "close", Database.Statement>;

  /** `maxDbBytes`: the store's size cap (0: none), which bounds the table. */
  constructor(db: Database.Database, maxDbBytes = 0) {
    this.bound = dictionaryBoundFor(maxDbBytes);
    this.stmt = {
      insert: db.prepare("INSERT INTO span_names (name) VALUES (?) RETURNING id").pluck(),
      select: db.prepare("SELECT id FROM span_names WHERE name = ?").pluck(),
      count: db.prepare("SELECT count(*) FROM span_names").pluck(),
      isClosed: db.prepare("SELECT 1 FROM meta WHERE key = ?").pluck(),
      close: db.prepare("INSERT INTO meta (key, value) VALUES (?, '1') ON CONFLICT (key) DO NOTHING"),
    };
    for (const statement of Object.values(this.stmt)) statement.safeIntegers(false);
  }

  /** The id `name` is stored under, or null when spans keep it in their rows. */
  idOf(name: string): number | null {
    // Not remembered: a long name costs the memo its length and the answer only this check.
    if (Buffer.byteLength(name) > MAX_SPAN_NAME_BYTES) return null;
    let id = this.memo.get(name);
    if (id === undefined) {
      id = this.lookUp(name);
      if (this.memo.size >= MEMO_CAPACITY) this.memo.clear();
      this.memo.set(name, id);
    }
    return id === IN_ROWS ? null : id;
  }

  private lookUp(name: string): number {
    const stored = this.stmt.select.get(name) as number | undefined;
    if (stored !== undefined) return stored;
    this.closed ??= this.stmt.isClosed.get(CLOSED_KEY) !== undefined;
    this.count ??= this.stmt.count.get() as number;
    if (this.closed || this.count >= this.bound) {
      if (!this.closed) this.stmt.close.run(CLOSED_KEY);
      this.closed = true;
      return IN_ROWS;
    }
    this.count++;
    return this.stmt.insert.get(name) as number;
  }

  /** After a rolled-back transaction: the memo may name rows, and the counts a state, that are gone. */
  reset(): void {
    this.memo.clear();
    this.count = null;
    this.closed = null;
  }
}

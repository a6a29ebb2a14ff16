import type Database from "better-sqlite3";
import type { ValueIdOf } from "./attribute-coding.js";

/**
 * Occurrences of a key's values (of at least MIN_DICTIONARY_VALUE_BYTES) looked at before its
 * values are put in the dictionary or kept in rows.
 */
export const SAMPLE = 256;
/**
 * A key's values go to the dictionary when at least this share of a sample's values had been
 * seen before in it: a value seen twice is already cheaper as an id.
 */
const REPEATS_TO_CODE = 0.5;
/**
 * Occurrences of a coded key per check that its values still repeat: past REPEATS_TO_CODE of
 * them new to the dictionary, the key's values go back to rows (a key that turned out to carry
 * ids, a user id of a growing user base).
 */
export const CHECK_EVERY = 4096;
/** Keys being sampled at once, at most: a store whose keys are ids themselves samples no more. */
const SAMPLED_KEYS = 10_000;
/** Longer values stay in rows: they are rarely repeated, and a dictionary entry is kept forever. */
export const MAX_DICTIONARY_VALUE_BYTES = 1024;
/**
 * The dictionary's bound, in values and in bytes: retention does not trim it (its ids are never
 * reused, so readers may keep a copy), so the writer stops adding values past it and new values
 * stay in rows. A million values fit the varint ids' 3 bytes (2^21).
 */
const MAX_DICTIONARY_VALUES = 1_000_000;
const MAX_DICTIONARY_BYTES = 32 * 1024 * 1024;

/** The dictionary's bound (a parameter for tests of it). */
export interface DictionaryBound {
  values: number;
  bytes: number;
}
/** Value ids remembered by the writer; past this the memo starts over (a miss is one indexed lookup). */
const MEMO_CAPACITY = 200_000;

/** What the writer knows of one key's values. */
interface KeyValues {
  /** null once decided. */
  sample: Set<string> | null;
  /** Occurrences looked at, and how many repeated one seen before (sampling), or were new to the dictionary (coded). */
  seen: number;
  counted: number;
  coded: boolean;
}

/**
 * The writer's side of the attribute value dictionary (`attr_values`, schema version 14):
 * which keys' values are stored once and named by id (attribute-coding.ts), and their ids.
 *
 * A key's first SAMPLE values are kept in rows while the writer counts how many repeat; if
 * half or more do, its later values go to the dictionary, and every CHECK_EVERY of them it checks
 * that at most half were new to it. The decision is the process's own: a restart samples again.
 * Only the writer thread uses this, inside its transactions; after a rollback `reset()` forgets
 * ids that may be gone.
 */
export class AttributeValueDictionary {
  private readonly keys = new Map<number, KeyValues>();
  /** Value ids by the key's id and the value's JSON text. */
  private ids = new Map<number, Map<string, number>>();
  private idsHeld = 0;
  private values = 0;
  private bytes = 0;
  private readonly stmt: { insert: Database.Statement; select: Database.Statement; size: Database.Statement };

  constructor(
    db: Database.Database,
    private readonly bound: DictionaryBound = { values: MAX_DICTIONARY_VALUES, bytes: MAX_DICTIONARY_BYTES },
  ) {
    this.stmt = {
      insert: db
        .prepare("INSERT INTO attr_values (value) VALUES (?) ON CONFLICT (value) DO NOTHING RETURNING id")
        .pluck(),
      select: db.prepare("SELECT id FROM attr_values WHERE value = ?").pluck(),
      size: db.prepare("SELECT count(*), coalesce(sum(length(value)), 0) FROM attr_values").raw(),
    };
    for (const statement of Object.values(this.stmt)) statement.safeIntegers(false);
    this.readSize();
  }

  private readSize(): void {
    const [values, bytes] = this.stmt.size.get() as [number, number];
    this.values = values;
    this.bytes = bytes;
  }

  /** attribute-coding.ts's ValueIdOf: the value's id, or -1 to keep it in the row. */
  readonly idOf: ValueIdOf = (keyId, json, start, end, bytes, from, to) => {
    if (to - from > MAX_DICTIONARY_VALUE_BYTES) return -1;
    let key = this.keys.get(keyId);
    if (key === undefined) {
      if (this.keys.size >= SAMPLED_KEYS) return -1;
      key = { sample: new Set(), seen: 0, counted: 0, coded: false };
      this.keys.set(keyId, key);
    }
    if (key.sample !== null) {
      this.sampleValue(key, json.slice(start, end));
      return -1;
    }
    if (!key.coded) return -1;
    const text = json.slice(start, end);
    let byText = this.ids.get(keyId);
    const known = byText?.get(text);
    let id = known ?? -1;
    if (id < 0) {
      const value = Buffer.from(bytes.subarray(from, to));
      const full = this.values >= this.bound.values || this.bytes + value.length > this.bound.bytes;
      const inserted = full ? undefined : (this.stmt.insert.get(value) as number | undefined);
      if (inserted !== undefined) {
        id = inserted;
        this.values++;
        this.bytes += value.length;
        key.counted++;
      } else id = (this.stmt.select.get(value) as number | undefined) ?? -1;
      if (id < 0) return -1;
      if (this.idsHeld >= MEMO_CAPACITY) {
        this.ids = new Map();
        this.idsHeld = 0;
        byText = undefined;
      }
      if (byText === undefined) {
        byText = new Map();
        this.ids.set(keyId, byText);
      }
      byText.set(text, id);
      this.idsHeld++;
    }
    if (++key.seen >= CHECK_EVERY) {
      if (key.counted > key.seen * REPEATS_TO_CODE) key.coded = false;
      key.seen = 0;
      key.counted = 0;
    }
    return id;
  };

  private sampleValue(key: KeyValues, text: string): void {
    const sample = key.sample as Set<string>;
    if (sample.has(text)) key.counted++;
    else sample.add(text);
    if (++key.seen < SAMPLE) return;
    key.coded = key.counted >= key.seen * REPEATS_TO_CODE;
    key.sample = null;
    key.seen = 0;
    key.counted = 0;
  }

  /** After a rolled-back transaction: ids it made are gone (the keys' decisions stand). */
  reset(): void {
    this.ids = new Map();
    this.idsHeld = 0;
    this.readSize();
  }
}

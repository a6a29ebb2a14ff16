import type Database from "better-sqlite3";
import type { ValueIdOf } from "./attribute-coding.js";
import { fnv1a32 } from "./fnv.js";

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
 * them new to the dictionary (or refused by a full one), the key's values go back to rows (a key
 * that turned out to carry ids, a user id of a growing user base).
 */
export const CHECK_EVERY = 4096;
/**
 * Keys sampled at once, at most: a key seen rarely holds its place until its sample is full.
 * Past this, new keys' values stay in rows until places free up, and once STALE_AFTER values
 * were turned away for want of a place, the keys still sampling are decided on what they have
 * seen (a key seen too few times to tell is forgotten, to be sampled again when it comes back).
 */
export const SAMPLING_AT_ONCE = 1000;
export const STALE_AFTER = 10_000;
/** Fewest values a key must have shown to be decided early. */
const FEWEST_TO_DECIDE = 16;
/** Keys whose decision is remembered; past this they are all forgotten and sampled again. */
const KEYS_KEPT = 100_000;
/** Longer values stay in rows: they are rarely repeated, and a dictionary entry is kept forever. */
export const MAX_DICTIONARY_VALUE_BYTES = 256;
/**
 * The dictionary's bound in values. Retention does not trim it (its ids are never reused, so
 * readers keep a copy of all of it, query/attribute-values.ts), so the writer stops adding
 * values past it and new values stay in rows. A full dictionary of 256-byte values takes about
 * BYTES_PER_VALUE of file each with its index; the bound keeps it to a small share of the
 * store's size cap (dictionaryBoundFor), at most 50,000 values: about 28 MB under the default
 * 1 GiB cap. The usual store, whose repeating values are routes, methods, hosts and users,
 * holds a few thousand.
 */
export const MAX_DICTIONARY_VALUES = 50_000;
const BYTES_PER_VALUE = 600;
const SHARE_OF_CAP = 0.03;

/** The dictionary's bound for a store capped at `maxDbBytes` (0: no cap). */
export function dictionaryBoundFor(maxDbBytes: number): number {
  if (maxDbBytes <= 0) return MAX_DICTIONARY_VALUES;
  return Math.min(MAX_DICTIONARY_VALUES, Math.floor((maxDbBytes * SHARE_OF_CAP) / BYTES_PER_VALUE));
}
/** Value ids remembered by the writer (all of a full dictionary). */
const MEMO_CAPACITY = MAX_DICTIONARY_VALUES;

/** What the writer knows of one key's values. */
interface KeyValues {
  /** Hashes of the values seen while sampling; null once decided. */
  sample: Set<number> | null;
  /** Occurrences looked at, and how many repeated one seen before (sampling) or were new to the dictionary (coded). */
  seen: number;
  counted: number;
  coded: boolean;
}

/** A value the writer knows the id of. */
interface KnownValue {
  bytes: Buffer;
  id: number;
}

function sameBytes(known: Buffer, bytes: Uint8Array, from: number, to: number): boolean {
  if (known.length !== to - from) return false;
  for (let i = 0; i < known.length; i++) if (known[i] !== bytes[from + i]) return false;
  return true;
}

/** A sample keeps hashes, not texts: a collision only skews a count. */
const hashOf = fnv1a32;

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
  private keys = new Map<number, KeyValues>();
  private sampling = 0;
  /** Values turned away since sampling was last full. */
  private turnedAway = 0;
  /**
   * Value ids by the hash of the value's UTF-8 bytes, each with its own copy of the bytes to
   * compare: a value met again costs a hash and a comparison, no allocation.
   */
  private ids = new Map<number, KnownValue[]>();
  private idsHeld = 0;
  /** Values in the dictionary: its ids run from 1 without gaps (never deleted; a rollback takes the newest). */
  private values = 0;
  private readonly stmt: { insert: Database.Statement; select: Database.Statement; size: Database.Statement };

  /** `maxValues`: the dictionary's bound (a parameter for tests of it). */
  constructor(
    db: Database.Database,
    private readonly maxValues = MAX_DICTIONARY_VALUES,
  ) {
    this.stmt = {
      insert: db
        .prepare("INSERT INTO attr_values (value) VALUES (?) ON CONFLICT (value) DO NOTHING RETURNING id")
        .pluck(),
      select: db.prepare("SELECT id FROM attr_values WHERE value = ?").pluck(),
      size: db.prepare("SELECT coalesce(max(id), 0) FROM attr_values").pluck(),
    };
    for (const statement of Object.values(this.stmt)) statement.safeIntegers(false);
    this.values = this.stmt.size.get() as number;
  }

  /** attribute-coding.ts's ValueIdOf: the value's id, or -1 to keep it in the row. */
  readonly idOf: ValueIdOf = (keyId, bytes, from, to) => {
    if (to - from > MAX_DICTIONARY_VALUE_BYTES) return -1;
    const key = this.keys.get(keyId) ?? this.startSampling(keyId);
    if (key === undefined) return -1;
    if (key.sample !== null) {
      this.sampleValue(key, hashOf(bytes, from, to));
      return -1;
    }
    if (!key.coded) return -1;
    const hash = hashOf(bytes, from, to);
    let id = -1;
    for (const known of this.ids.get(hash) ?? []) {
      if (sameBytes(known.bytes, bytes, from, to)) {
        id = known.id;
        break;
      }
    }
    if (id < 0) {
      // New to this process: in the dictionary already (a restart, a forgotten memo), or added
      // now if there is room; a value refused by a full dictionary counts as new.
      const value = Buffer.from(bytes.subarray(from, to));
      id = (this.stmt.select.get(value) as number | undefined) ?? -1;
      if (id < 0) {
        key.counted++;
        if (this.values < this.maxValues) {
          id = this.stmt.insert.get(value) as number;
          this.values++;
        }
      }
      if (id >= 0) this.remember(hash, value, id);
    }
    if (++key.seen >= CHECK_EVERY) {
      if (key.counted > key.seen * REPEATS_TO_CODE) key.coded = false;
      key.seen = 0;
      key.counted = 0;
    }
    return id;
  };

  private remember(hash: number, bytes: Buffer, id: number): void {
    if (this.idsHeld >= MEMO_CAPACITY) {
      this.ids = new Map();
      this.idsHeld = 0;
    }
    const same = this.ids.get(hash);
    if (same === undefined) this.ids.set(hash, [{ bytes, id }]);
    else same.push({ bytes, id });
    this.idsHeld++;
  }

  private startSampling(keyId: number): KeyValues | undefined {
    if (this.keys.size >= KEYS_KEPT) {
      this.keys = new Map();
      this.sampling = 0;
    }
    if (this.sampling >= SAMPLING_AT_ONCE) {
      if (this.turnedAway++ < STALE_AFTER) return undefined;
      this.decideStale();
    }
    const key: KeyValues = { sample: new Set(), seen: 0, counted: 0, coded: false };
    this.keys.set(keyId, key);
    this.sampling++;
    return key;
  }

  /** Decides, or forgets, every key still sampling: their places go to the keys arriving now. */
  private decideStale(): void {
    for (const [keyId, key] of this.keys) {
      if (key.sample === null) continue;
      if (key.seen >= FEWEST_TO_DECIDE) this.decide(key);
      else this.keys.delete(keyId);
    }
    this.sampling = 0;
    this.turnedAway = 0;
  }

  private decide(key: KeyValues): void {
    key.coded = key.counted >= key.seen * REPEATS_TO_CODE;
    key.sample = null;
    key.seen = 0;
    key.counted = 0;
  }

  private sampleValue(key: KeyValues, hash: number): void {
    const sample = key.sample as Set<number>;
    if (sample.has(hash)) key.counted++;
    else sample.add(hash);
    if (++key.seen < SAMPLE) return;
    this.decide(key);
    this.sampling--;
  }

  /** After a rolled-back transaction: ids it made are gone (the keys' decisions stand). */
  reset(): void {
    this.ids = new Map();
    this.idsHeld = 0;
    this.values = this.stmt.size.get() as number;
  }
}

import type Database from "better-sqlite3";
import { attributesJson, attributeValueJson, wholeText } from "../store/attribute-coding.js";
import { AttributeValues } from "./attribute-values.js";
import { readAroundOnSide } from "./dictionary-side-read.js";

/** A key as the readers use it: its JSON text, and the same as UTF-8. */
interface KnownKey {
  json: string;
  bytes: Buffer;
}

/**
 * Keys held per connection: every key of a usual store (tens to thousands), and a bound for a
 * store whose keys are ids themselves; past it the copy starts over, and keys are read again
 * as rows name them.
 */
const KEYS_HELD = 50_000;
/** Keys read around one a row names that the copy lacks: keys made together are used together. */
const KEYS_AROUND = 512;

/**
 * The attribute key dictionary (`attr_keys`) as a read connection's SQL functions need it to
 * read coded attributes (store/attribute-coding.ts): each id's key as JSON text. It reads the
 * values a row keeps in the value dictionary through its AttributeValues.
 *
 * Keys are only ever added, never deleted or renumbered, and a key commits with the first rows
 * that name it, so an id read from a row is in the dictionary of any later commit. A key the
 * copy lacks is read through a short-lived connection of its own (dictionary-side-read.ts).
 */
export class AttributeKeys {
  private keys = new Map<number, KnownKey>();
  private readonly values: AttributeValues;

  /** `held`, `valuesHeld`: the most keys and values kept (parameters for tests of the bounds). */
  constructor(
    private readonly db: Database.Database,
    private readonly held = KEYS_HELD,
    valuesHeld?: number,
  ) {
    this.read(db, 0, held);
    this.values = new AttributeValues(db, valuesHeld);
  }

  /** Reads the keys with ids from `from`, at most `count`. */
  private read(source: Database.Database, from: number, count: number): void {
    const rows = source
      .prepare("SELECT id, key FROM attr_keys WHERE id >= ? ORDER BY id LIMIT ?")
      .raw()
      .safeIntegers(false)
      .all(from, count) as [number, string][];
    if (this.keys.size + rows.length > this.held) this.keys = new Map();
    for (const [id, key] of rows) {
      const json = JSON.stringify(key);
      this.keys.set(id, { json, bytes: Buffer.from(json, "utf8") });
    }
  }

  /** The key of `id`, read (with the keys around it) when the copy lacks it. */
  private keyOf(id: number): KnownKey | undefined {
    const known = this.keys.get(id);
    if (known !== undefined) return known;
    readAroundOnSide(this.db, id, Math.min(KEYS_AROUND, this.held), (source, from, count) =>
      this.read(source, from, count),
    );
    return this.keys.get(id);
  }

  /** The attributes' JSON text, as it was coded. */
  json(bytes: Uint8Array): string {
    return attributesJson(bytes, (id) => this.keyOf(id)?.bytes, this.values.bytesOf);
  }

  /** One attribute's value as JSON text, by its key's JSON text; undefined when absent. */
  valueJson(bytes: Uint8Array, keyJson: string): string | undefined {
    const whole = wholeText(bytes);
    if (whole !== undefined) {
      const object = JSON.parse(whole) as Record<string, unknown>;
      const key = JSON.parse(keyJson) as string;
      return Object.hasOwn(object, key) ? JSON.stringify(object[key]) : undefined;
    }
    return attributeValueJson(
      bytes,
      (keyId) => this.keyOf(keyId)?.json === keyJson,
      (id) => this.values.textOf(id),
    );
  }
}

const byConnection = new WeakMap<Database.Database, AttributeKeys>();

/** The connection's key dictionary (one per connection, however many readers share it). */
export function attributeKeysOf(db: Database.Database): AttributeKeys {
  let keys = byConnection.get(db);
  if (keys === undefined) {
    keys = new AttributeKeys(db);
    byConnection.set(db, keys);
  }
  return keys;
}

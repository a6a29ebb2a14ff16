import Database from "better-sqlite3";
import { attributesJson, forEachAttribute, textOf, wholeText } from "../store/attribute-coding.js";

/**
 * The attribute key dictionary (`attr_keys`) as a read connection's SQL functions need it to
 * read coded attributes (store/attribute-coding.ts): each id's key as JSON text.
 *
 * Keys are only ever added, never deleted or renumbered, so an id read from a row is in any
 * copy of the dictionary made after that row was committed. A function meeting an id it does
 * not know reads the keys added since through a short-lived connection of its own: the
 * reader's connection is busy running the statement that called it, and a new connection
 * reads the latest commit, which is at least as new as the row.
 */
export class AttributeKeys {
  private readonly jsonById: Buffer[] = [];
  private readonly idByJson = new Map<string, number>();
  private maxId = 0;

  constructor(private readonly db: Database.Database) {
    this.load(db);
  }

  private load(source: Database.Database): void {
    const rows = source
      .prepare("SELECT id, key FROM attr_keys WHERE id > ? ORDER BY id")
      .raw()
      .safeIntegers(false)
      .all(this.maxId) as [number, string][];
    for (const [id, key] of rows) {
      const json = JSON.stringify(key);
      this.jsonById[id] = Buffer.from(json, "utf8");
      this.idByJson.set(json, id);
      this.maxId = id;
    }
  }

  private refresh(): void {
    if (this.db.memory) return;
    const side = new Database(this.db.name, { readonly: true, fileMustExist: true });
    try {
      this.load(side);
    } finally {
      side.close();
    }
  }

  /** A key's JSON text (UTF-8) by id, reading newer keys once when it is not known yet. */
  jsonOf = (id: number): Buffer | undefined => {
    const known = this.jsonById[id];
    if (known !== undefined || id <= this.maxId) return known;
    this.refresh();
    return this.jsonById[id];
  };

  /** The attributes' JSON text, as it was coded. */
  json(bytes: Uint8Array): string {
    return attributesJson(bytes, this.jsonOf);
  }

  /** One attribute's value as JSON text, by its key's JSON text; undefined when absent. */
  valueJson(bytes: Uint8Array, keyJson: string): string | undefined {
    const whole = wholeText(bytes);
    if (whole !== undefined) {
      const object = JSON.parse(whole) as Record<string, unknown>;
      const key = JSON.parse(keyJson) as string;
      return Object.hasOwn(object, key) ? JSON.stringify(object[key]) : undefined;
    }
    let target = this.idByJson.get(keyJson);
    let found: string | undefined;
    forEachAttribute(bytes, (id, start, end) => {
      // An id past the dictionary read so far: read the newer keys, the wanted one may be among them.
      if (id > this.maxId) {
        this.jsonOf(id);
        target = this.idByJson.get(keyJson);
      }
      if (id !== target) return false;
      found = textOf(bytes, start, end);
      return true;
    });
    return found;
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

import type Database from "better-sqlite3";
import { MAX_DICTIONARY_VALUES } from "../store/attribute-values.js";
import { readAroundOnSide } from "./dictionary-side-read.js";

/**
 * Values held per connection: all of a full dictionary (store/attribute-values.ts bounds it), so
 * a value is read once per connection; a smaller bound (tests) starts the copy over when full,
 * and values are read again as rows name them.
 */
const VALUES_HELD = MAX_DICTIONARY_VALUES;
/** Values read around one a row names that the copy lacks: values made together are used together. */
const VALUES_AROUND = 512;

/**
 * The attribute value dictionary (`attr_values`, schema version 14) as a read connection needs
 * it to read coded attributes (store/attribute-coding.ts): each id's value as the UTF-8 bytes of
 * its JSON text, and the text itself once asked for. The values there when the connection is
 * first used are read at once (a usual store holds a few thousand).
 *
 * Values are only ever added, never deleted or renumbered, and a value commits with the first
 * rows that name it, so an id read from a row is in the dictionary of any later commit. A value
 * the copy lacks is read through a connection of its own (dictionary-side-read.ts), as the keys are.
 */
export class AttributeValues {
  private bytes = new Map<number, Buffer>();
  private texts = new Map<number, string>();

  /** `held`: the most values kept (a parameter for tests of the bound). */
  constructor(
    private readonly db: Database.Database,
    private readonly held = VALUES_HELD,
  ) {
    // A store from before schema version 14 (read by tests before they upgrade it) has no
    // dictionary, and its rows name no values.
    if (db.prepare("SELECT 1 FROM sqlite_schema WHERE name = 'attr_values'").get() !== undefined)
      this.read(db, 0, held);
  }

  /** Reads the values with ids from `from`, at most `count`. */
  private read(source: Database.Database, from: number, count: number): void {
    const rows = source
      .prepare("SELECT id, value FROM attr_values WHERE id >= ? ORDER BY id LIMIT ?")
      .raw()
      .safeIntegers(false)
      .all(from, count) as [number, Buffer][];
    if (this.bytes.size + rows.length > this.held) {
      this.bytes = new Map();
      this.texts = new Map();
    }
    for (const [id, value] of rows) this.bytes.set(id, value);
  }

  /** The UTF-8 bytes of the value `id`, read (with the values around it) when the copy lacks it. */
  readonly bytesOf = (id: number): Buffer | undefined => {
    const known = this.bytes.get(id);
    if (known !== undefined) return known;
    readAroundOnSide(this.db, id, Math.min(VALUES_AROUND, this.held), (source, from, count) =>
      this.read(source, from, count),
    );
    return this.bytes.get(id);
  };

  /** The JSON text of the value `id`; undefined when the dictionary does not hold it. */
  textOf(id: number): string | undefined {
    const known = this.texts.get(id);
    if (known !== undefined) return known;
    const text = this.bytesOf(id)?.toString("utf8");
    if (text !== undefined) this.texts.set(id, text);
    return text;
  }
}

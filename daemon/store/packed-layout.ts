/**
 * A record type's packed layout, described once as a table of columns, and the pack and
 * build functions compiled from it. A column crosses either as it is, or (a text that repeats
 * across records) as a number into the batch's string table, -1 standing for null.
 *
 * Packing runs on the decoder thread for every record the JavaScript decoders produce, and
 * building on the writer thread for every record stored, so both are compiled to the straight
 * code a hand-written packer would be (one `push` of every field, one object literal): a loop
 * over the table reads each field by a computed name, which costs these hot paths far more
 * than the table saves (docs/PERFORMANCE.md, ingest and decode).
 */

/** How a field crosses: as it is, or as a string table index (`optional-text`: -1 for null). */
export type Crossing = "value" | "text" | "optional-text";

export interface Column<R> {
  readonly field: Exclude<keyof R, "indexed"> & string;
  readonly crossing: Crossing;
}

/**
 * The type error that names the fields a layout leaves out; `true` when it has every field of
 * `R` (but `indexed`, which crosses apart).
 */
export type CoversEvery<R, L extends readonly Column<R>[]> = [
  Exclude<keyof R, "indexed" | L[number]["field"]>,
] extends [never]
  ? true
  : { missing: Exclude<keyof R, "indexed" | L[number]["field"]> };

/** The texts of one batch, each once; records refer to them by number. */
export class StringTable {
  readonly strings: string[] = [];
  private readonly index = new Map<string, number>();
  of(text: string): number {
    let i = this.index.get(text);
    if (i === undefined) {
      i = this.strings.length;
      this.strings.push(text);
      this.index.set(text, i);
    }
    return i;
  }
  /** -1 stands for null. */
  ofOptional(text: string | null): number {
    return text === null ? -1 : this.of(text);
  }
}

export interface RecordCodec<R, F extends string> {
  /** Fields per record. */
  readonly width: number;
  /** Each column's offset within a record's fields. */
  readonly at: Readonly<Record<F, number>>;
  /** Appends `record`'s fields, in layout order, to `fields`. */
  readonly pack: (record: R, table: StringTable, fields: unknown[]) => void;
  /** The record whose fields start at `o`, with its index entries. */
  readonly build: (fields: unknown[], o: number, strings: string[], indexed: string[]) => R;
}

const IDENTIFIER = /^[A-Za-z_$][\w$]*$/;

/** Compiles `layout`'s pack and build functions (see the file comment for why they are compiled). */
export function recordCodec<R, const L extends readonly Column<R>[]>(layout: L): RecordCodec<R, L[number]["field"]> {
  const at: Record<string, number> = {};
  const packed: string[] = [];
  const built: string[] = [];
  layout.forEach(({ field, crossing }, i) => {
    if (!IDENTIFIER.test(field) || field in at) throw new Error(`packed layout: bad or repeated field "${field}"`);
    at[field] = i;
    const value = `f[o + ${i}]`;
    if (crossing === "value") {
      packed.push(`r.${field}`);
      built.push(`${field}: ${value}`);
    } else if (crossing === "text") {
      packed.push(`t.of(r.${field})`);
      built.push(`${field}: s[${value}]`);
    } else {
      packed.push(`t.ofOptional(r.${field})`);
      built.push(`${field}: ${value} < 0 ? null : s[${value}]`);
    }
  });
  built.push("indexed: indexed");
  return {
    width: layout.length,
    at: at as Record<L[number]["field"], number>,
    pack: new Function("r", "t", "f", `f.push(${packed.join(", ")});`) as RecordCodec<R, string>["pack"],
    build: new Function("f", "o", "s", "indexed", `return { ${built.join(", ")} };`) as RecordCodec<R, string>["build"],
  };
}

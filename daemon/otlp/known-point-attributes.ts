import { type DecodedAttributes, type PlainValue, setPlainKey } from "./any-value.js";
import { pointAttributes } from "./metric-points.js";
import type { PlainObject } from "./protobuf-any-value.js";
import type { RunRecall } from "./protobuf-descriptor.js";

/**
 * Point attributes known by their bytes. A metric series sends the same attribute set every
 * interval for as long as its process runs, and an SDK encodes it the same way each time, so
 * the decoder keeps each set's decoded forms by the bytes it came in (the run of KeyValue
 * fields, RunRecall in protobuf-descriptor.ts) and reads a known set by one map lookup instead
 * of decoding its keys and values, sorting them and writing their JSON again. Decoding is a
 * function of those bytes alone, so a recalled set is what reading it would give, and it is
 * charged what reading it cost (nested arrays and maps included).
 *
 * Each set kept also gets a number, so that the writer thread, which receives the JSON as a new
 * string in every request, can tell a set it has seen without hashing its text (packed-metric-points.ts,
 * known-attribute-texts.ts). A number is never given to two texts by one memo.
 *
 * What is kept is bounded by an estimate of the memory it holds: past the bound the memo starts
 * over (a miss costs one ordinary decode). It lives as long as its decoder thread.
 */

/** A run longer than this is read, not offered: ten attributes of a typical series take 300 to 600. */
const MAX_RUN_BYTES = 4096;
/** The estimate of what the memo holds (below) past which it starts over. */
const MAX_KEPT_BYTES = 16 * 1024 * 1024;
/**
 * An entry's cost beside its texts: two map entries, its objects and the index entries' array
 * and strings headers. The JSON is counted twice: the index entries hold its keys and values again.
 */
const ENTRY_BYTES = 256;

interface Known {
  readonly decoded: DecodedAttributes;
  /** What reading the run cost the decode allowance. */
  readonly units: number;
}

/** What a point being read holds for the memo. */
export interface AttributeRuns {
  readonly attributes: PlainObject;
  /** Runs of its attribute field seen so far. */
  attributeRuns: number;
  /** The set its only run was recalled as; null when it was read. */
  recalled: DecodedAttributes | null;
  /** The bytes of its only run, when that run was read and can be kept for the next time. */
  runKey: string | null;
  /** What reading that run cost the decode allowance. */
  runUnits: number;
}

export class KnownPointAttributes<S extends AttributeRuns> implements RunRecall<S> {
  readonly maxBytes = MAX_RUN_BYTES;
  private known = new Map<string, Known>();
  /** The sets' numbers, by their JSON (one text may come from several byte runs). */
  private numbers = new Map<string, number>();
  private lastNumber = 0;
  private kept = 0;

  constructor(private readonly maxKeptBytes = MAX_KEPT_BYTES) {}

  /** Sets kept. */
  get size(): number {
    return this.known.size;
  }

  recall(point: S, bytes: string | null): number {
    if (point.attributeRuns++ > 0) {
      // A second run (attributes not sent together): every run is read and merged in order, a
      // repeated key keeping its last value, and the set is not kept (its bytes are not one run).
      // A recalled first run comes back from its JSON with its keys sorted, which the stored
      // JSON sorts anyway.
      const recalled = point.recalled;
      if (recalled !== null) {
        const object = JSON.parse(recalled.json) as PlainObject;
        for (const key in object) setPlainKey(point.attributes, key, object[key] as PlainValue);
        point.recalled = null;
      }
      point.runKey = null;
      return -1;
    }
    if (bytes === null) return -1;
    const known = this.known.get(bytes);
    if (known === undefined) {
      point.runKey = bytes;
      return -1;
    }
    point.recalled = known.decoded;
    return known.units;
  }

  read(point: S, units: number): void {
    point.runUnits = units;
  }

  /** The number of a kept set's JSON, 0 for any other text. */
  numberOf(json: string): number {
    return this.numbers.get(json) ?? 0;
  }

  /** A point's attributes as stored (pointAttributes), once all its fields are read. */
  attributesOf(point: S): DecodedAttributes {
    if (point.recalled !== null) return point.recalled;
    const decoded = pointAttributes(point.attributes);
    const key = point.runKey;
    if (key !== null) {
      const cost = key.length + 2 * decoded.json.length + ENTRY_BYTES;
      this.kept += cost;
      if (this.kept > this.maxKeptBytes) {
        this.known = new Map();
        this.numbers = new Map();
        this.kept = cost;
      }
      this.known.set(key, { decoded, units: point.runUnits });
      if (!this.numbers.has(decoded.json)) this.numbers.set(decoded.json, ++this.lastNumber);
    }
    return decoded;
  }
}

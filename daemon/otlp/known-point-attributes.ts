import { type DecodedAttributes, type PlainValue, setPlainKey } from "./any-value.js";
import { type ByteRun, ByteRunMap, hashRun } from "./byte-runs.js";
import { pointAttributes } from "./metric-points.js";
import type { PlainObject } from "./protobuf-any-value.js";
import type { RunRecall } from "./protobuf-descriptor.js";

/**
 * Point attributes known by their bytes. A metric series sends the same attribute set every
 * interval for as long as its process runs, and an SDK encodes it the same way each time, so
 * the decoder keeps each set's decoded forms by the bytes it came in (the run of KeyValue
 * fields, RunRecall in protobuf-descriptor.ts) and reads a known set by one lookup of those
 * bytes (byte-runs.ts) instead of decoding its keys and values, sorting them and writing their
 * JSON again. Decoding is a function of those bytes alone, so a recalled set is what reading
 * it would give, and it is charged what reading it cost (nested arrays and maps included).
 *
 * Each set kept also gets a number, which every point of the set carries (`set`), so that a
 * set's JSON crosses to the writer thread once, and its later points by the number alone
 * (attribute-text-crossing.ts). A number is never given to two texts, nor given again once the
 * memo has started over (`firstLiveSet`).
 *
 * What is kept is bounded by an estimate of the memory it holds: past the bound the memo starts
 * over (a miss costs one ordinary decode). It lives as long as its decoder thread.
 */

/** A run longer than this is read, not offered: ten attributes of a typical series take 300 to 600. */
const MAX_RUN_BYTES = 4096;
/**
 * The estimate of what the memo holds (below) past which it starts over: about 12,000 sets of
 * ten attributes in runs of 400 bytes. A collector sent more distinct sets than that every
 * interval decodes most points in full, as one without the memo does.
 */
const MAX_KEPT_BYTES = 24 * 1024 * 1024;
/**
 * An entry's cost beside its texts: its map entries, objects and strings' headers, and a little
 * more per attribute indexed. The JSON is counted twice: the index entries hold its keys and
 * values again. The run's bytes are counted once: the map copies them into slabs
 * (byte-runs.ts). Fitted to what a full collection leaves live for a memo filled to its bound,
 * sets of 3 to 20 attributes in runs of 120 to 4,000 bytes (docs/metrics-store.md, "Attribute
 * runs hashed as bytes").
 */
const ENTRY_BYTES = 560;
const ATTRIBUTE_BYTES = 24;

interface Known {
  readonly decoded: DecodedAttributes;
  /** What reading the run cost the decode allowance. */
  readonly units: number;
  /** The set's number. */
  readonly set: number;
}

/** What a point being read holds for the memo. */
export interface AttributeRuns {
  readonly attributes: PlainObject;
  /** Runs of its attribute field seen so far. */
  attributeRuns: number;
  /** The set its only run was recalled as; null when it was read. */
  recalled: DecodedAttributes | null;
  /**
   * Its only run, when that run was read and can be kept for the next time: where it is in the
   * body being decoded, which lives until the point is closed.
   */
  run: ByteRun | null;
  /** hashRun of that run. */
  runHash: number;
  /** What reading that run cost the decode allowance. */
  runUnits: number;
  /**
   * Its set's number once attributesOf has given its attributes: 0 when its set has none (not
   * kept, and its text not numbered).
   */
  set: number;
}

export class KnownPointAttributes<S extends AttributeRuns> implements RunRecall<S> {
  readonly maxBytes = MAX_RUN_BYTES;
  private known = new ByteRunMap<Known>();
  /** The sets' numbers, by their JSON (one text may come from several byte runs). */
  private numbers = new Map<string, number>();
  private lastNumber = 0;
  private firstLive = 1;
  private kept = 0;

  constructor(private readonly maxKeptBytes = MAX_KEPT_BYTES) {}

  /** Sets kept. */
  get size(): number {
    return this.known.size;
  }

  /**
   * The lowest number a point decoded from now on can carry: numbers below it belong to sets
   * the memo forgot when it started over, and are never given again (numbers only grow).
   */
  get firstLiveSet(): number {
    return this.firstLive;
  }

  recall(point: S, run: ByteRun | null): number {
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
      point.run = null;
      return -1;
    }
    if (run === null) return -1;
    const hash = hashRun(run);
    const known = this.known.get(run, hash);
    if (known === undefined) {
      // The offered object moves on with the reader: its bounds are kept.
      point.run = { body: run.body, view: run.view, start: run.start, end: run.end };
      point.runHash = hash;
      return -1;
    }
    point.recalled = known.decoded;
    point.set = known.set;
    return known.units;
  }

  read(point: S, units: number): void {
    point.runUnits = units;
  }

  /**
   * A point's attributes as stored (pointAttributes), once all its fields are read; sets the
   * point's `set`.
   */
  attributesOf(point: S): DecodedAttributes {
    if (point.recalled !== null) return point.recalled;
    const decoded = pointAttributes(point.attributes);
    const run = point.run;
    point.run = null;
    point.set = 0;
    if (run !== null) {
      const cost =
        run.end - run.start + 2 * decoded.json.length + ENTRY_BYTES + (ATTRIBUTE_BYTES * decoded.indexed.length) / 2;
      if (this.kept + cost > this.maxKeptBytes) {
        this.known = new ByteRunMap();
        this.numbers = new Map();
        this.kept = 0;
        this.firstLive = this.lastNumber + 1;
      }
      const numbered = this.numbers.get(decoded.json);
      const set = numbered ?? this.lastNumber + 1;
      if (this.known.set(run, point.runHash, { decoded, units: point.runUnits, set })) {
        this.kept += cost;
        if (numbered === undefined) {
          this.lastNumber = set;
          this.numbers.set(decoded.json, set);
        }
        point.set = set;
      } else {
        // Too many kept runs share its hash (byte-runs.ts): read each time, numbered only when
        // its text already is.
        point.set = numbered ?? 0;
      }
    }
    return decoded;
  }
}

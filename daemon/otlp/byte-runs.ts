/**
 * Runs of a body's bytes as map keys, without making a string of them.
 *
 * The decoder knows a point's attribute set by the bytes it came in (known-point-attributes.ts),
 * once per point. A latin1 string of those bytes cost a copy, a string on the heap and the
 * engine's hash of every character, which it computes one character at a time; hashing the
 * bytes four at a time through a DataView, and comparing them to the kept copy natively, took
 * about two fifths of that for runs of 400 bytes (docs/metrics-store.md, "Attribute runs
 * hashed as bytes").
 */

/** `body[start, end)`, with a view of the same bytes at the same offsets. */
export interface ByteRun {
  readonly body: Buffer;
  /** `body`'s bytes, `view.getUint32(i)` reading `body[i]` onwards. */
  readonly view: DataView;
  readonly start: number;
  readonly end: number;
}

/**
 * A 32-bit hash of a run's bytes, four at a time. Not a defence against chosen collisions:
 * ByteRunMap compares the bytes, and bounds how many runs share a hash.
 */
export function hashRun({ view, start, end }: ByteRun): number {
  let h = (0x9e3779b9 ^ (end - start)) | 0;
  let i = start;
  for (; i + 4 <= end; i += 4) {
    h = Math.imul(h ^ view.getUint32(i, true), 0x85ebca6b);
    h ^= h >>> 13;
  }
  for (; i < end; i++) h = Math.imul(h ^ view.getUint8(i), 0xc2b2ae35);
  h = Math.imul(h ^ (h >>> 16), 0x27d4eb2f);
  return (h ^ (h >>> 15)) >>> 0;
}

/** A run's bytes, copied: a run is only valid while its body is. */
export function copyRun({ body, start, end }: ByteRun): Buffer {
  return Buffer.from(body.subarray(start, end));
}

interface Entry<V> {
  readonly bytes: Buffer;
  readonly value: V;
  readonly next: Entry<V> | undefined;
}

/**
 * More runs than this sharing a hash are not kept: a lookup compares at most this many, whatever
 * bytes a sender chooses. Distinct attribute runs share a hash about once in four billion.
 */
const MAX_SHARING_A_HASH = 4;

/** Values by the bytes of a run, which are compared, not only hashed. */
export class ByteRunMap<V> {
  private readonly entries = new Map<number, Entry<V>>();
  private count = 0;

  /** Runs kept. */
  get size(): number {
    return this.count;
  }

  /** The value kept for bytes equal to the run's, if any; `hash` is hashRun(run). */
  get(run: ByteRun, hash: number): V | undefined {
    const length = run.end - run.start;
    for (let entry = this.entries.get(hash); entry !== undefined; entry = entry.next) {
      if (entry.bytes.length === length && run.body.compare(entry.bytes, 0, length, run.start, run.end) === 0) {
        return entry.value;
      }
    }
    return undefined;
  }

  /**
   * Keeps `value` for `bytes` (a copy the map now owns, not yet kept), whose hash is `hash`.
   * Returns false, keeping nothing, when MAX_SHARING_A_HASH runs already share that hash.
   */
  set(bytes: Buffer, hash: number, value: V): boolean {
    const first = this.entries.get(hash);
    let sharing = 0;
    for (let entry = first; entry !== undefined; entry = entry.next) sharing++;
    if (sharing >= MAX_SHARING_A_HASH) return false;
    this.entries.set(hash, { bytes, value, next: first });
    this.count++;
    return true;
  }
}

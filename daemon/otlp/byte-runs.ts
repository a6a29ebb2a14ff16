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

interface Entry<V> {
  /** The slab holding a copy of the run's bytes, at `offset`. */
  readonly slab: Buffer;
  readonly offset: number;
  readonly length: number;
  readonly value: V;
  readonly next: Entry<V> | undefined;
}

/**
 * More runs than this sharing a hash are not kept: a lookup compares at most this many, whatever
 * bytes a sender chooses (the hash has no secret, so a sender can choose colliding ones).
 */
const MAX_SHARING_A_HASH = 4;

/**
 * Kept runs are copied into slabs of this size, one after another: a buffer of its own per run
 * cost about 570 bytes of resident memory beside its bytes (its objects and the allocator's),
 * and a copy from Node's shared pool would keep a whole 8 KiB block alive. A run longer than a
 * slab gets a buffer of its own.
 */
const SLAB_BYTES = 64 * 1024;

/**
 * Values by the bytes of a run, which are compared, not only hashed. What it keeps lives as
 * long as the map: a map that must forget is replaced by a new one.
 */
export class ByteRunMap<V> {
  private readonly entries = new Map<number, Entry<V>>();
  private count = 0;
  private slab: Buffer | null = null;
  private used = 0;

  /** Runs kept. */
  get size(): number {
    return this.count;
  }

  /** The value kept for bytes equal to the run's, if any; `hash` is hashRun(run). */
  get(run: ByteRun, hash: number): V | undefined {
    const length = run.end - run.start;
    for (let entry = this.entries.get(hash); entry !== undefined; entry = entry.next) {
      if (
        entry.length === length &&
        run.body.compare(entry.slab, entry.offset, entry.offset + length, run.start, run.end) === 0
      ) {
        return entry.value;
      }
    }
    return undefined;
  }

  /**
   * Keeps `value` for a copy of the run's bytes (not yet kept), whose hash is `hash`. Returns
   * false, keeping nothing, when MAX_SHARING_A_HASH runs already share that hash.
   */
  set(run: ByteRun, hash: number, value: V): boolean {
    const first = this.entries.get(hash);
    let sharing = 0;
    for (let entry = first; entry !== undefined; entry = entry.next) sharing++;
    if (sharing >= MAX_SHARING_A_HASH) return false;
    const length = run.end - run.start;
    let slab: Buffer;
    let offset = 0;
    if (length > SLAB_BYTES) {
      // Alone, leaving the current slab's room to the runs after it.
      slab = Buffer.allocUnsafeSlow(length);
    } else {
      if (this.slab === null || this.used + length > this.slab.length) {
        this.slab = Buffer.allocUnsafeSlow(SLAB_BYTES);
        this.used = 0;
      }
      slab = this.slab;
      offset = this.used;
      this.used += length;
    }
    run.body.copy(slab, offset, run.start, run.end);
    this.entries.set(hash, { slab, offset, length, value, next: first });
    this.count++;
    return true;
  }
}

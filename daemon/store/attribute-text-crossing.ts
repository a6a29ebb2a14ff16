import { attributeSetAt, type PackedMetricPoints } from "./packed-metric-points.js";

/**
 * A metric point's attributes' JSON crosses from a decoder thread to the writer once per
 * attribute set, not once per point.
 *
 * A series sends the same attribute set every interval for as long as it runs, and the decoder
 * numbers each set it keeps (KnownPointAttributes): one number, one text, for the life of the
 * decoder thread, numbers only growing. Structured clone copied every point's text on the
 * decoder thread and built it again as a new string on the writer thread, the busiest one
 * (docs/metrics-store.md, "Attribute texts cross once"). Now the decoder sends a set's text with
 * the first point of it that leaves the thread, and null for every later one; the writer keeps
 * the texts it received from that decoder, by number, and puts them back as the batch arrives,
 * before anything else reads it. Points of one set then share one string on the writer thread,
 * whose hash the engine has already computed for the writer's maps.
 *
 * Both sides are per decoder thread: the writer keeps one ReceivedAttributeTexts per decoder
 * port (a replacement decoder numbers anew, over a port of its own), and messages on one port
 * arrive in the order they were sent. When the decoder's memo starts over, the numbers it had
 * given are never given again: each batch carries the lowest number still live, and both sides
 * forget the numbers below it once the batch is through, so what the writer keeps is bounded by
 * what the decoder's memo keeps.
 */

/** Decoder thread: which sets' texts have left on the port to the writer. */
export class SentAttributeTexts {
  private sent = new Set<number>();
  private firstLive = 1;

  /**
   * Leaves out of `packed` the texts already sent, and of every later point of a set in the
   * batch; returns what to call once the batch is posted, which marks its texts sent and
   * records the first live number. Not called (the post threw), nothing is marked: the next
   * batch carries those texts again.
   */
  leave(packed: PackedMetricPoints, firstLive: number): () => void {
    const { attributes } = packed;
    const carried: number[] = [];
    const inBatch = new Set<number>();
    for (let i = 0; i < attributes.length; i++) {
      const set = attributeSetAt(packed, i);
      if (set === 0) continue;
      if (this.sent.has(set) || inBatch.has(set)) {
        attributes[i] = null;
      } else {
        inBatch.add(set);
        carried.push(set);
      }
    }
    packed.firstLiveSet = firstLive;
    return () => {
      for (const set of carried) this.sent.add(set);
      if (firstLive > this.firstLive) {
        this.firstLive = firstLive;
        this.sent = new Set([...this.sent].filter((set) => set >= firstLive));
      }
    };
  }

  /** Numbers whose texts are marked sent. */
  get size(): number {
    return this.sent.size;
  }
}

/** A batch whose left-out text was never received: a broken crossing, not a bad request. */
export class MissingAttributeTextError extends Error {
  override name = "MissingAttributeTextError";
}

/** Writer thread: the texts one decoder has sent, by their number. */
export class ReceivedAttributeTexts {
  private texts = new Map<number, string>();
  private firstLive = 1;

  /**
   * Keeps every text the batch carries, puts back the ones it left out, and forgets the numbers
   * below the batch's first live one. Throws MissingAttributeTextError for a left-out text it
   * never received (the batch is then not to be stored), having kept the batch's texts and
   * forgotten what it says is gone all the same: a later batch that carries or leaves out only
   * texts received is restored.
   */
  arrive(packed: PackedMetricPoints): void {
    const { attributes } = packed;
    for (let i = 0; i < attributes.length; i++) {
      const text = attributes[i];
      if (text === null || text === undefined) continue;
      const set = attributeSetAt(packed, i);
      if (set === 0) continue;
      const kept = this.texts.get(set);
      if (kept === text) attributes[i] = kept;
      else this.texts.set(set, text);
    }
    let missing: string | null = null;
    for (let i = 0; i < attributes.length; i++) {
      if (attributes[i] !== null && attributes[i] !== undefined) continue;
      const set = attributeSetAt(packed, i);
      const kept = this.texts.get(set);
      if (kept !== undefined) attributes[i] = kept;
      else missing ??= `metric point ${i}: the text of attribute set ${set} was left out but never received`;
    }
    const firstLive = packed.firstLiveSet;
    if (firstLive > this.firstLive) {
      this.firstLive = firstLive;
      for (const set of [...this.texts.keys()]) if (set < firstLive) this.texts.delete(set);
    }
    if (missing !== null) throw new MissingAttributeTextError(missing);
  }

  /** Texts kept. */
  get size(): number {
    return this.texts.size;
  }
}

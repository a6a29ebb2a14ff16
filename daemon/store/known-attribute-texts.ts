/**
 * One string per attribute set in the writer thread. A point's attributes' JSON reaches the
 * writer as a new string in every request (structured clone copies it), and the writer's
 * maps (the request's repeat filter, the series memo) would hash its few hundred characters
 * for every point. The decoder numbers the sets it knows (KnownPointAttributes), and the writer
 * keeps the first string it received for each number: a point whose text equals it (compared,
 * not hashed) takes that string, whose hash the engine has already computed. The number is
 * only a hint: a text that differs from the one kept for its number (a decoder that restarted
 * and numbers anew) replaces it, and the point keeps its own text.
 */

/** Characters kept, each text counted with an entry's cost, past which the table starts over. */
const MAX_KEPT = 16 * 1024 * 1024;
/** An entry's cost beside its text: the map entry and the string's header. */
const ENTRY = 64;

export class KnownAttributeTexts {
  private texts = new Map<number, string>();
  private kept = 0;

  constructor(private readonly maxKept = MAX_KEPT) {}

  /** Texts kept. */
  get size(): number {
    return this.texts.size;
  }

  /** The string to use for `text`, the JSON of the set numbered `set` (0: not numbered). */
  of(set: number, text: string): string {
    if (set === 0) return text;
    const kept = this.texts.get(set);
    if (kept === text) return kept;
    // Replacing a text still counts it: the table starts over a little early, never late.
    const cost = text.length + ENTRY;
    this.kept += cost;
    if (this.kept > this.maxKept) {
      this.texts = new Map();
      this.kept = cost;
    }
    this.texts.set(set, text);
    return text;
  }
}

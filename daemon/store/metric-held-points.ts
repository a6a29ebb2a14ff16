import { type JournalRefs, journalPointTime } from "./metric-point-journal.js";

/**
 * One series' points that the metric writer holds unwritten (metric-writer.ts): where each is
 * in the journal bytes of the request it came in, oldest first (only in-order points are held).
 *
 * Held as offsets, not as values: a series holds its points for minutes, and a value array per
 * point (two of its values bigints) kept that long is what the garbage collector copies and
 * marks. The bytes are the journal row's, packed once per request and shared by the series it
 * holds points of.
 */
export class HeldPoints {
  /** Alternately a request's journal bytes and a point's offset in them. */
  private refs: JournalRefs = [];

  get count(): number {
    return this.refs.length / 2;
  }

  add(bytes: Buffer, offset: number): void {
    this.refs.push(bytes, offset);
  }

  /** The oldest held point's time, or undefined when none is held. */
  firstTimeNs(): bigint | undefined {
    return this.refs.length === 0 ? undefined : journalPointTime(this.refs[0] as Buffer, this.refs[1] as number);
  }

  /** Whether a point of this time is held. */
  has(timeNs: bigint): boolean {
    for (let i = 0; i < this.refs.length; i += 2) {
      if (journalPointTime(this.refs[i] as Buffer, this.refs[i + 1] as number) === timeNs) return true;
    }
    return false;
  }

  /**
   * Appends where every held point is (oldest first) to `out`, and holds none: read back into
   * values a chunk at a time when written (unpackJournalRefs).
   */
  takeInto(out: JournalRefs): void {
    for (const ref of this.refs) out.push(ref);
    this.refs = [];
  }
}

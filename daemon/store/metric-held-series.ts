/**
 * The series whose open rollup rows and newest time the metric writer holds unwritten, by the
 * minute they are open in.
 *
 * A series exporting every 10 s puts six points into each 60 s row. Written every commit, the
 * row was rewritten once per point; held until its minute is over (or a reader asks), it is
 * written about once per minute (docs/metrics-store.md, "Open minutes held by the writer").
 * Only a series' newest minute is ever held: the commit in which a series moves on to a later
 * minute writes the row it leaves.
 */
export class HeldSeries<T> {
  private readonly bySeries = new Map<number, { minute: number; value: T }>();
  private readonly byMinute = new Map<number, Set<number>>();

  get size(): number {
    return this.bySeries.size;
  }

  has(seriesId: number): boolean {
    return this.bySeries.has(seriesId);
  }

  get(seriesId: number): T | undefined {
    return this.bySeries.get(seriesId)?.value;
  }

  /** The minute a held series is held by (its newest point's), or undefined when not held. */
  minuteOf(seriesId: number): number | undefined {
    return this.bySeries.get(seriesId)?.minute;
  }

  /** Holds (or keeps holding) a series' value, open in `minute`. */
  hold(seriesId: number, minute: number, value: T): void {
    const held = this.bySeries.get(seriesId);
    if (held !== undefined && held.minute === minute) {
      held.value = value;
      return;
    }
    if (held !== undefined) this.leaveMinute(seriesId, held.minute);
    this.bySeries.set(seriesId, { minute, value });
    let ids = this.byMinute.get(minute);
    if (ids === undefined) {
      ids = new Set();
      this.byMinute.set(minute, ids);
    }
    ids.add(seriesId);
  }

  /** Stops holding a series; returns its value, or undefined when it was not held. */
  release(seriesId: number): T | undefined {
    const held = this.bySeries.get(seriesId);
    if (held === undefined) return undefined;
    this.bySeries.delete(seriesId);
    this.leaveMinute(seriesId, held.minute);
    return held.value;
  }

  /** Takes a series out of a minute's set, and the minute out once no series is held in it. */
  private leaveMinute(seriesId: number, minute: number): void {
    const ids = this.byMinute.get(minute);
    ids?.delete(seriesId);
    if (ids !== undefined && ids.size === 0) this.byMinute.delete(minute);
  }

  /** The earliest minute a series is held in, or undefined when none is. */
  oldestMinute(): number | undefined {
    let oldest: number | undefined;
    for (const minute of this.byMinute.keys()) if (oldest === undefined || minute < oldest) oldest = minute;
    return oldest;
  }

  /**
   * Every held series' id and value. A generator method of the class, not a generator function
   * made per call: V8 dropped the optimized code of a loop over the generator of a function made
   * per call each time that function was collected, and compiled the loop again (`trimJournal`,
   * about 40 times in twenty minutes of points).
   */
  *entries(): IterableIterator<[number, T]> {
    for (const [id, held] of this.bySeries) yield [id, held.value];
  }

  /** Stops holding every series open in a minute before `minute`; returns their values. */
  releaseBefore(minute: number): T[] {
    const released: T[] = [];
    // A few minutes are held at a time (series' newest minutes), so this loop is short.
    for (const [held, ids] of this.byMinute) {
      if (held >= minute) continue;
      for (const id of ids) {
        released.push((this.bySeries.get(id) as { value: T }).value);
        this.bySeries.delete(id);
      }
      this.byMinute.delete(held);
    }
    return released;
  }

  /** Stops holding every series; returns their ids and values. */
  releaseAll(): [number, T][] {
    const released = [...this.bySeries].map(([id, held]): [number, T] => [id, held.value]);
    this.bySeries.clear();
    this.byMinute.clear();
    return released;
  }
}

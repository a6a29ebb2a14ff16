/**
 * Bounds the cost of the requests inside the ingest pipeline (being decoded, queued or
 * written), in the units of ingest-limits.ts (`requestCost`: decoded values and body bytes).
 * Decoded records take many times their body's size on the worker heaps, so many costly
 * requests at once would otherwise grow the collector without limit. Requests over the budget
 * wait their turn, first come first served; one request larger than the budget is admitted
 * when nothing else is inside. A request admitted at an estimate is `resize`d once its cost is
 * known.
 */
export class BodyBudget {
  private inside = 0;
  private readonly waiting: { bytes: number; admit: () => void }[] = [];

  constructor(readonly limitBytes: number) {}

  /** Bytes admitted and not yet released. */
  get admittedBytes(): number {
    return this.inside;
  }

  /** Resolves once `bytes` may enter; pair it with one `release(bytes)`. */
  admit(bytes: number): Promise<void> {
    if (this.waiting.length === 0 && this.fits(bytes)) {
      this.inside += bytes;
      return Promise.resolve();
    }
    return new Promise((admit) => this.waiting.push({ bytes, admit }));
  }

  release(bytes: number): void {
    this.inside -= bytes;
    this.admitWaiting();
  }

  /** Changes what an admitted request holds from `from` to `to` (its estimate to its measured cost). */
  resize(from: number, to: number): void {
    this.inside += to - from;
    if (to < from) this.admitWaiting();
  }

  private admitWaiting(): void {
    while (this.waiting.length > 0 && this.fits((this.waiting[0] as { bytes: number }).bytes)) {
      const next = this.waiting.shift() as { bytes: number; admit: () => void };
      this.inside += next.bytes;
      next.admit();
    }
  }

  /** Requests waiting to be admitted. */
  get waitingCount(): number {
    return this.waiting.length;
  }

  private fits(bytes: number): boolean {
    return this.inside === 0 || this.inside + bytes <= this.limitBytes;
  }
}

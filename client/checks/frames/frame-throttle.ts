/** `--frame-interval`: at most one frame per interval, the first one at once. Pure. */
export class FrameThrottle {
  private last = Number.NEGATIVE_INFINITY;
  constructor(private readonly intervalMs: number) {}

  /** True when a frame arriving at `now` (ms) is kept; keeping it starts the next interval. */
  admit(now: number): boolean {
    if (now - this.last < this.intervalMs) return false;
    this.last = now;
    return true;
  }
}

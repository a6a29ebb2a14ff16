/** Durations as the spec writes them: an integer and a unit, e.g. `15m`, `2h`, `1d`. */

const UNIT_MS = {
  ms: 1,
  s: 1_000,
  m: 60_000,
  h: 3_600_000,
  d: 86_400_000,
  w: 604_800_000,
} as const;

const DURATION_PATTERN = /^(\d+)(ms|s|m|h|d|w)$/;

/** The longest lookback any query accepts. */
export const MAX_LOOKBACK_MS = 24 * 3_600_000;

export class DurationError extends Error {
  override name = "DurationError";
  /** The form is right but the duration is longer than milliseconds can be counted exactly. */
  readonly tooLong: boolean;
  constructor(message: string, tooLong = false) {
    super(message);
    this.tooLong = tooLong;
  }
}

/** Parses `15m`, `2h`, `1d`, `30s`, `500ms`, `1w` into milliseconds. Rejects zero and anything else. */
export function parseDuration(text: string): number {
  const match = DURATION_PATTERN.exec(text.trim());
  if (!match) {
    throw new DurationError(
      `invalid duration "${text}": use an integer and a unit (ms, s, m, h, d, w), e.g. 15m, 2h, 1d`,
    );
  }
  const amount = Number(match[1]);
  const ms = amount * UNIT_MS[match[2] as keyof typeof UNIT_MS];
  if (ms === 0) throw new DurationError(`invalid duration "${text}": must be greater than zero`);
  // Past 2^53 ms (about 285,000 years) the count is no longer exact, nor any date it reaches.
  if (!Number.isSafeInteger(ms)) throw new DurationError(`invalid duration "${text}": too long`, true);
  return ms;
}

/** Formats milliseconds with the largest unit that divides them exactly: 900000 -> `15m`. */
export function formatDuration(ms: number): string {
  for (const unit of ["d", "h", "m", "s"] as const) {
    const size = UNIT_MS[unit];
    if (ms >= size && ms % size === 0) return `${ms / size}${unit}`;
  }
  return `${ms}ms`;
}

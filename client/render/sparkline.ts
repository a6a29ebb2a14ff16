/**
 * A series of values as one line of characters, one per column, for `obs metric`. Pure.
 *
 * Scaling: the lowest value of the line is the lowest level and the highest the highest, so the
 * line shows the series' shape, not its size (the table beside it gives the number). A constant
 * series is drawn at the middle level: flat, and visibly present. A missing value (null, or not
 * a finite number) is a space: a gap is drawn as a gap, never as a zero. Negative values scale
 * like any other. A series longer than the width is drawn with several values per column, each
 * column the mean of its values (a column whose values are all missing is a gap).
 *
 * Characters: the eight Unicode lower blocks, or `_.-=#` where the terminal says it cannot show
 * them (blockCharactersShown).
 */

export const BLOCK_LEVELS = "▁▂▃▄▅▆▇█";
export const ASCII_LEVELS = "_.-=#";
export const GAP = " ";

export interface SparklineOptions {
  /** The most columns the line may take; 1 or more. */
  width: number;
  /** Draw with ASCII_LEVELS instead of the Unicode blocks. */
  ascii?: boolean;
}

function present(value: number | null | undefined): value is number {
  return typeof value === "number" && Number.isFinite(value);
}

/** `values` in at most `width` columns: each column the mean of the present values it covers. */
export function columnsOf(values: readonly (number | null)[], width: number): (number | null)[] {
  const columns = Math.min(values.length, Math.max(1, Math.floor(width)));
  const out: (number | null)[] = [];
  for (let column = 0; column < columns; column += 1) {
    const from = Math.floor((column * values.length) / columns);
    const to = Math.floor(((column + 1) * values.length) / columns);
    let count = 0;
    for (let index = from; index < to; index += 1) if (present(values[index])) count += 1;
    // Each value divided before adding: a sum of values near the largest double would overflow.
    let mean = 0;
    for (let index = from; index < to; index += 1) {
      const value = values[index];
      if (present(value)) mean += value / count;
    }
    out.push(count === 0 ? null : mean);
  }
  return out;
}

export function sparkline(values: readonly (number | null)[], options: SparklineOptions): string {
  const levels = [...(options.ascii ? ASCII_LEVELS : BLOCK_LEVELS)];
  const columns = columnsOf(values, options.width);
  const shown = columns.filter(present);
  if (shown.length === 0) return GAP.repeat(columns.length);
  const low = Math.min(...shown);
  const high = Math.max(...shown);
  const top = levels.length - 1;
  return columns
    .map((value) => {
      if (!present(value)) return GAP;
      // Halves only where high - low overflows to Infinity (values near the largest double):
      // halved, the smallest doubles would become 0.
      const wide = !Number.isFinite(high - low);
      const level =
        high === low
          ? Math.floor(top / 2)
          : Math.round(
              wide ? ((value / 2 - low / 2) / (high / 2 - low / 2)) * top : ((value - low) / (high - low)) * top,
            );
      return levels[level];
    })
    .join("");
}

/**
 * Whether the terminal can show the Unicode blocks: not with TERM=dumb, nor when the locale
 * that sets the character type (LC_ALL, else LC_CTYPE, else LANG, as POSIX orders them) is set
 * and does not say UTF-8, nor when none is set on a POSIX system (the "C" locale is ASCII).
 * Windows terminals show them without a locale variable.
 */
export function blockCharactersShown(env: NodeJS.ProcessEnv, platform: NodeJS.Platform = process.platform): boolean {
  if (env.TERM === "dumb") return false;
  const locale = [env.LC_ALL, env.LC_CTYPE, env.LANG].find((value) => value !== undefined && value !== "");
  if (locale === undefined) return platform === "win32";
  return /utf-?8/i.test(locale);
}

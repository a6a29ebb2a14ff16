/**
 * The line under a table that is one page of a longer answer. A cursor belongs to the query
 * that issued it (the collector refuses it with other filters), so the hint is the whole
 * command that fetches the next page: the same arguments, with this cursor instead of any
 * earlier one, quoted for a POSIX shell.
 */
import type { PageMeta } from "../../shared/api-records.js";

/** Characters a shell word may hold without quotes. */
const PLAIN_WORD = /^[A-Za-z0-9_./:=@%+,-]+$/;

export function shellQuote(word: string): string {
  return PLAIN_WORD.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}

/**
 * `args` as typed after `obs`, without its `--cursor`, with `--cursor CURSOR` after the last
 * option: before any `--`, after which it would be an argument rather than the cursor.
 */
export function nextPageCommand(args: readonly string[], cursor: string): string {
  const kept: string[] = [];
  let rest: readonly string[] = [];
  for (let i = 0; i < args.length; i += 1) {
    const arg = args[i] as string;
    if (arg === "--") {
      rest = args.slice(i);
      break;
    }
    if (arg === "--cursor") i += 1;
    else if (!arg.startsWith("--cursor=")) kept.push(arg);
  }
  return ["obs", ...kept, "--cursor", cursor, ...rest].map(shellQuote).join(" ");
}

/** "N shown", and when there is more, the command that shows it. */
export function pageLine(meta: PageMeta, args: readonly string[]): string {
  return meta.truncated && meta.nextCursor
    ? `${meta.returned} shown; next page: ${nextPageCommand(args, meta.nextCursor)}`
    : `${meta.returned} shown`;
}

/**
 * `--` ends the options: the words after it are the command's arguments, whatever they look
 * like. yargs 17 keeps them out of a command's positionals (into `argv._`, where `.strict()`
 * does not look), so `obs traces -- attr.http.route=/cart` listed every trace and
 * `obs services -- extra` ran as `obs services`. Here they become ordinary positionals, so each
 * is applied or refused exactly as it would be without `--`.
 */
import { UsageError } from "../../shared/usage-failure.js";

/** A word yargs would read as an option: not a lone `-` (stdin) and not a negative number. */
function looksLikeOption(word: string): boolean {
  return word.startsWith("-") && word !== "-" && !/^-\d/.test(word);
}

/**
 * The command line with the words after `--` moved among the positionals. They go before the
 * options that end the words before `--`, so none of them is read as the value of a flag
 * written without one (`--service -- attr.a=b` stays a --service with no value). A word after
 * `--` that would read as an option cannot be passed as an argument any other way: refused.
 */
export function positionalsAfterDoubleDash(args: readonly string[]): string[] {
  const end = args.indexOf("--");
  if (end === -1) return [...args];
  const before = args.slice(0, end);
  const after = args.slice(end + 1);
  const dashed = after.find(looksLikeOption);
  if (dashed !== undefined) {
    throw new UsageError(`${dashed} after --: no argument of obs begins with "-"; options go before --`);
  }
  let options = before.length;
  while (options > 0 && looksLikeOption(before[options - 1] as string)) options -= 1;
  return [...before.slice(0, options), ...after, ...before.slice(options)];
}

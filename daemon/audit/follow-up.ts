/** `obs` commands a finding suggests, quoted so that they work when pasted into a shell. */

const SAFE_WORD = /^[A-Za-z0-9_./:@%+=,-]+$/;

/** POSIX shell quoting: plain words stay as they are, anything else in single quotes. */
export function shellQuote(value: string): string {
  if (SAFE_WORD.test(value)) return value;
  return `'${value.replace(/'/g, `'\\''`)}'`;
}

/**
 * `obs` followed by its arguments, each quoted as needed; null and undefined flag values are
 * skipped. A value that starts with a dash (a service named `-x`) is joined to its flag with
 * `=`: quoting cannot keep obs from reading it as a flag of its own.
 */
export function obsCommand(...parts: (string | [flag: string, value: string | null | undefined])[]): string {
  const words: string[] = ["obs"];
  for (const part of parts) {
    if (typeof part === "string") words.push(shellQuote(part));
    else if (part[1] === null || part[1] === undefined) continue;
    else if (part[1].startsWith("-")) words.push(`${part[0]}=${shellQuote(part[1])}`);
    else words.push(part[0], shellQuote(part[1]));
  }
  return words.join(" ");
}

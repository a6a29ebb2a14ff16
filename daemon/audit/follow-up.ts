/** `obs` commands a finding suggests, quoted so that they work when pasted into a shell. */

import { MAX_FILTER_TEXT } from "../../shared/query-params.js";

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
 *
 * Null when a value is longer than a filter's text may be (MAX_FILTER_TEXT): obs would refuse
 * the command, and cut to fit it would name nothing.
 */
export function obsCommand(...parts: (string | [flag: string, value: string | null | undefined])[]): string | null {
  const words: string[] = ["obs"];
  for (const part of parts) {
    const value = typeof part === "string" ? part : part[1];
    if (value === null || value === undefined) continue;
    if (value.length > MAX_FILTER_TEXT) return null;
    if (typeof part === "string") words.push(shellQuote(value));
    else if (value.startsWith("-")) words.push(`${part[0]}=${shellQuote(value)}`);
    else words.push(part[0], shellQuote(value));
  }
  return words.join(" ");
}

/** A finding's follow-up commands: those that can be given. */
export function followUps(...commands: (string | null)[]): string[] {
  return commands.filter((command): command is string => command !== null);
}

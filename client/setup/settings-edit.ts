/**
 * Setting values in a JSONC settings file through jsonc-parser, so comments, formatting and
 * every other setting stay exactly as they were. Pure: text in, text and the list of changes out.
 */
import { isDeepStrictEqual } from "node:util";
import {
  applyEdits,
  type FormattingOptions,
  findNodeAtLocation,
  getNodeValue,
  modify,
  type Node,
  parseTree,
} from "jsonc-parser";

export type SettingValue = string | boolean | string[];

/** One key the setup set: its dotted path, the value it had (null when absent) and the new one. */
export interface SettingChange {
  key: string;
  before: unknown;
  after: SettingValue;
}

export interface SettingsEdit {
  text: string;
  changes: SettingChange[];
}

export const PARSE_OPTIONS = { allowTrailingComma: true, disallowComments: false } as const;

/** The settings file cannot be edited safely; nothing is written. */
export class SettingsFileError extends Error {
  override name = "SettingsFileError";
}

/** The whitespace before the top-level object's first key, when that key starts its own line. */
function firstKeyIndent(text: string): string | undefined {
  const root = parseTree(text, [], PARSE_OPTIONS);
  const first = root?.type === "object" ? root.children?.[0] : undefined;
  if (!first) return undefined;
  const lead = text.slice(text.lastIndexOf("\n", first.offset - 1) + 1, first.offset);
  return /^[ \t]+$/.test(lead) ? lead : undefined;
}

/**
 * Indentation and line endings as the file already uses them, so new lines blend in. The
 * indentation is the first key's: a comment above it (` * ` lines) says nothing about it.
 */
export function formattingOf(text: string): FormattingOptions {
  const eol = text.includes("\r\n") ? "\r\n" : "\n";
  const indented = firstKeyIndent(text);
  if (indented?.startsWith("\t")) return { insertSpaces: false, tabSize: 1, eol };
  return { insertSpaces: true, tabSize: indented ? indented.length : 2, eol };
}

/** The parsed node at `path`, or undefined when the text is blank or the key absent. */
export function nodeAt(text: string, path: string[]): Node | undefined {
  if (text.trim() === "") return undefined;
  const root = parseTree(text, [], PARSE_OPTIONS);
  return root ? findNodeAtLocation(root, path) : undefined;
}

function lineOf(text: string, offset: number): number {
  return text.slice(0, offset).split("\n").length;
}

/**
 * The first key on one of `paths` that its object holds twice, with the lines of its first
 * two copies; undefined when there is none. jsonc-parser edits the first copy of a key, while
 * the agent, as JSON parsers do, reads the last: an edit there would change nothing it reads.
 */
export function repeatedKeyOn(
  text: string,
  paths: readonly (readonly string[])[],
): { key: string; lines: [number, number] } | undefined {
  if (text.trim() === "") return undefined;
  const root = parseTree(text, [], PARSE_OPTIONS);
  for (const path of paths) {
    let node = root;
    for (let depth = 0; depth < path.length && node?.type === "object"; depth++) {
      const name = path[depth] as string;
      const copies = (node.children ?? []).filter((property) => property.children?.[0]?.value === name);
      const [first, second] = copies;
      if (first && second) {
        return {
          key: path.slice(0, depth + 1).join("."),
          lines: [lineOf(text, first.offset), lineOf(text, second.offset)],
        };
      }
      node = first?.children?.[1];
    }
  }
  return undefined;
}

/** The message for a key `repeatedKeyOn` found. */
export function repeatedKeyProblem(repeated: { key: string; lines: [number, number] }, fileName: string): string {
  return `"${repeated.key}" appears twice in ${fileName} (lines ${repeated.lines[0]} and ${repeated.lines[1]}); the agent reads the last copy, so keep one`;
}

function valueAt(text: string, path: string[]): unknown {
  const node = nodeAt(text, path);
  return node ? getNodeValue(node) : undefined;
}

/**
 * Sets each `[path, value]` in `text` (an empty string for a file that does not exist yet), in
 * order. Keys that already hold the wanted value are left untouched, so a second run changes
 * nothing. The caller has checked that the text parses and that every parent is an object.
 */
export function applySettingValues(text: string, entries: [string[], SettingValue][]): SettingsEdit {
  const isBlank = text.trim() === "";
  const formattingOptions = formattingOf(text);
  let edited = text;
  const changes: SettingChange[] = [];
  for (const [path, wanted] of entries) {
    const current = valueAt(edited, path);
    if (isDeepStrictEqual(current, wanted)) continue;
    edited = applyEdits(edited, modify(edited, path, wanted, { formattingOptions }));
    changes.push({ key: path.join("."), before: current ?? null, after: wanted });
  }
  if (isBlank && changes.length > 0 && !edited.endsWith(formattingOptions.eol ?? "\n")) {
    edited += formattingOptions.eol ?? "\n";
  }
  return { text: edited, changes };
}

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

/** Indentation and line endings as the file already uses them, so new lines blend in. */
export function formattingOf(text: string): FormattingOptions {
  const eol = text.includes("\r\n") ? "\r\n" : "\n";
  const indented = /^([ \t]+)\S/m.exec(text)?.[1];
  if (indented?.startsWith("\t")) return { insertSpaces: false, tabSize: 1, eol };
  return { insertSpaces: true, tabSize: indented ? indented.length : 2, eol };
}

/** The parsed node at `path`, or undefined when the text is blank or the key absent. */
export function nodeAt(text: string, path: string[]): Node | undefined {
  if (text.trim() === "") return undefined;
  const root = parseTree(text, [], PARSE_OPTIONS);
  return root ? findNodeAtLocation(root, path) : undefined;
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

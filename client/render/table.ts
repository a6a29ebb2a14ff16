/**
 * Compact aligned tables for human output. Telemetry text is untrusted: control characters
 * (including the ESC that starts terminal escape sequences) are shown as visible escapes.
 */

// biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/g;
/**
 * Bidirectional controls (embeddings, overrides, isolates, marks) and the line and paragraph
 * separators: a terminal that lays text out both ways obeys them, so telemetry holding
 * "\u202enimda" shows as "admin", and an unclosed override reverses the rest of the row.
 */
export const BIDI_CONTROL = /[\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

export function safeText(value: unknown): string {
  const text = value === null || value === undefined ? "-" : String(value);
  return text
    .replace(CONTROL, (ch) => `\\x${ch.charCodeAt(0).toString(16).padStart(2, "0")}`)
    .replace(BIDI_CONTROL, (ch) => `\\u${ch.charCodeAt(0).toString(16).padStart(4, "0")}`);
}

/**
 * How many terminal columns a text takes: string-width's (a CJK character two, a combining
 * accent none) once `loadTextWidth` has run, else its length. Loaded on demand: importing it
 * (its emoji pattern) took about 20 ms of every `obs` command's start, `--version` and shell
 * prompts' `status` included, for tables that mostly hold ASCII.
 */
let textWidth: (text: string) => number = (text) => text.length;

/** Loads string-width for `renderTable`: called by the commands that print tables, before they render. */
export async function loadTextWidth(): Promise<void> {
  const { default: stringWidth } = await import("string-width");
  textWidth = stringWidth;
}

/**
 * Columns are padded to the width text takes on a terminal (textWidth), not to its length in
 * UTF-16 units, so a row holding `東京都` or `e\u0301` lines up with the others.
 */
export function renderTable(headers: string[], rows: unknown[][]): string {
  const head = headers.map(safeText);
  const cells = rows.map((row) => row.map(safeText));
  // Each cell measured once; printable ASCII (most cells: ids, numbers) is one column a character.
  const measure = (row: string[]) => row.map((cell) => (PRINTABLE_ASCII.test(cell) ? cell.length : textWidth(cell)));
  const headWidths = measure(head);
  const cellWidths = cells.map(measure);
  const widths = headWidths.map((width, i) => Math.max(width, ...cellWidths.map((row) => row[i] ?? 0)));
  const line = (row: string[], rowWidths: number[]) =>
    row
      .map((cell, i) =>
        i === row.length - 1 ? cell : cell + " ".repeat(Math.max(0, (widths[i] ?? 0) - (rowWidths[i] ?? 0))),
      )
      .join("  ")
      .trimEnd();
  return [line(head, headWidths), ...cells.map((row, r) => line(row, cellWidths[r] ?? []))].join("\n");
}

const PRINTABLE_ASCII = /^[\x20-\x7e]*$/;

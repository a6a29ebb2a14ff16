/**
 * Compact aligned tables for human output. Telemetry text is untrusted: control characters
 * (including the ESC that starts terminal escape sequences) are shown as visible escapes.
 */

// biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/g;

export function safeText(value: unknown): string {
  const text = value === null || value === undefined ? "-" : String(value);
  return text.replace(CONTROL, (ch) => `\\x${ch.charCodeAt(0).toString(16).padStart(2, "0")}`);
}

export function renderTable(headers: string[], rows: unknown[][]): string {
  const cells = rows.map((row) => row.map(safeText));
  const widths = headers.map((header, i) => Math.max(header.length, ...cells.map((row) => (row[i] ?? "").length)));
  const line = (row: string[]) =>
    row
      .map((cell, i) => (i === row.length - 1 ? cell : cell.padEnd(widths[i] ?? 0)))
      .join("  ")
      .trimEnd();
  return [line(headers), ...cells.map(line)].join("\n");
}

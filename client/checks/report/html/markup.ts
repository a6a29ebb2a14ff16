/**
 * Building HTML safely: the `html` tag escapes every value it interpolates unless the value is
 * markup it built itself. Everything in a run report is page or model text (a test name, an
 * instruction, evidence, a console message), so nothing from it can become markup by accident.
 */

/** Markup built by `html` (or `raw`), which is inserted as it is. */
export class Markup {
  constructor(readonly text: string) {}
  toString(): string {
    return this.text;
  }
}

/** What may be interpolated: text is escaped, markup is kept, null/undefined/false leave nothing. */
export type Part = string | number | Markup | readonly Part[] | null | undefined | false;

/** Characters no HTML document should carry: control characters other than tab and line breaks. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point
const CONTROL = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/g;

/** Escapes text for an element's content or a quoted attribute value. */
export function escapeHtml(text: string): string {
  return text
    .replace(/&/g, "&amp;")
    .replace(/</g, "&lt;")
    .replace(/>/g, "&gt;")
    .replace(/"/g, "&quot;")
    .replace(/'/g, "&#39;")
    .replace(CONTROL, "\ufffd");
}

function render(part: Part): string {
  if (part === null || part === undefined || part === false) return "";
  if (part instanceof Markup) return part.text;
  if (typeof part === "number") return String(part);
  if (typeof part === "string") return escapeHtml(part);
  return part.map(render).join("");
}

/** A template of markup whose interpolated values are escaped. */
export function html(strings: TemplateStringsArray, ...values: Part[]): Markup {
  let out = strings[0] ?? "";
  values.forEach((value, i) => {
    out += render(value) + (strings[i + 1] ?? "");
  });
  return new Markup(out);
}

/** Markup the caller vouches for (the stylesheet, a constant): never for text from a run. */
export function raw(text: string): Markup {
  return new Markup(text);
}

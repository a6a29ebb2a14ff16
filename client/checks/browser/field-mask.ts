// biome-ignore-all lint/suspicious/noExplicitAny: the functions passed to execute() run in the page, without DOM types
/**
 * Hiding what is typed into form fields while a screenshot is taken, and putting it back. One
 * mechanism for both screenshots that can show a secret: the one --vision sends the model
 * (every typed field hidden, vision-screenshot.ts) and the ones obs writes into a report (the
 * fields holding a secret, run/secret-fields.ts).
 *
 * The fields' own inline styles are set (CSSOM, which a Content-Security-Policy that refuses
 * inline <style> elements still allows) and put back as they were right after. Each function
 * passed to execute() is serialised into the page alone, so each walks the fields itself.
 */
import type { Browser } from "webdriverio";

/** Inputs that show a label, a box or a picker rather than typed text. */
const NOT_TYPED = ["button", "submit", "reset", "image", "checkbox", "radio", "range", "color", "file", "hidden"];
export const TYPED_FIELDS = [`input${NOT_TYPED.map((type) => `:not([type=${type}])`).join("")}`, "textarea"].join(", ");

/** Where the page keeps what to put back between the calls. */
const STATE = "__obsFieldMask";

/** The value of every typed field, in document order (open shadow roots too). */
function fieldValues(selector: string): string[] {
  const fields: any[] = [];
  const visit = (root: any) => {
    fields.push(...root.querySelectorAll(selector));
    for (const element of root.querySelectorAll("*")) if (element.shadowRoot) visit(element.shadowRoot);
  };
  visit((globalThis as any).document);
  return fields.map((field) => (typeof field.value === "string" ? field.value : ""));
}

/** Hides the text of the fields at `indexes` (fieldValues' order), or of every non-empty one when null. */
function hideFields(selector: string, indexes: number[] | null, state: string): number {
  const fields: any[] = [];
  const visit = (root: any) => {
    fields.push(...root.querySelectorAll(selector));
    for (const element of root.querySelectorAll("*")) if (element.shadowRoot) visit(element.shadowRoot);
  };
  visit((globalThis as any).document);
  const chosen = indexes === null ? fields.filter((field) => field.value !== "") : indexes.map((i) => fields[i]);
  const hidden: { field: any; style: string | null }[] = [];
  for (const field of chosen) {
    if (!field) continue;
    hidden.push({ field, style: field.getAttribute("style") });
    // Text and caret transparent (the fill color too, which some pages set): layout, borders and focus stay.
    for (const property of ["color", "-webkit-text-fill-color", "caret-color"]) {
      field.style.setProperty(property, "transparent", "important");
    }
    field.style.setProperty("text-shadow", "none", "important");
    field.style.setProperty("transition", "none", "important");
  }
  (globalThis as any)[state] = hidden;
  return hidden.length;
}

/** Puts every hidden field's style attribute back as it was. */
function restoreFields(state: string): void {
  const hidden = ((globalThis as any)[state] ?? []) as { field: any; style: string | null }[];
  for (const { field, style } of hidden) {
    // Set first, even when there was none: Chromium writes a changed inline style back to the
    // attribute lazily, and a removeAttribute alone can leave an empty style="" behind.
    field.setAttribute("style", style ?? "");
    if (style === null) field.removeAttribute("style");
  }
  delete (globalThis as any)[state];
}

/** The typed fields' values, in the order `withFieldsHidden` counts them. */
export async function typedFieldValues(browser: Browser): Promise<string[]> {
  return (await browser.execute(fieldValues, TYPED_FIELDS)) as string[];
}

/** Runs `work` (a screenshot) with the fields at `indexes` hidden (every typed one when null), then shows them again. */
export async function withFieldsHidden<T>(
  browser: Browser,
  indexes: number[] | null,
  work: () => Promise<T>,
): Promise<T> {
  await browser.execute(hideFields, TYPED_FIELDS, indexes, STATE);
  try {
    return await work();
  } finally {
    await browser.execute(restoreFields, STATE).catch(() => {});
  }
}

// biome-ignore-all lint/suspicious/noExplicitAny: the functions passed to execute() run in the page, without DOM types
/**
 * The screenshot --vision sends the model. What is typed into form fields is hidden in it: a
 * secret typed into a field that is not a password field (an API key, a one-time code) would
 * otherwise reach the model as pixels, where no redaction can find it. The text snapshot still
 * lists the fields' values, redacted, so the model loses nothing it needs.
 *
 * The fields' own inline styles are set (CSSOM, which a Content-Security-Policy that refuses
 * inline <style> elements still allows) and put back as they were right after the screenshot.
 */
import type { Browser } from "webdriverio";

/** Inputs that show a label, a box or a picker rather than typed text. */
const NOT_TYPED = ["button", "submit", "reset", "image", "checkbox", "radio", "range", "color", "file", "hidden"];
export const TYPED_FIELDS = [`input${NOT_TYPED.map((type) => `:not([type=${type}])`).join("")}`, "textarea"].join(", ");

/** Where the page keeps what to put back between the two calls. */
const STATE = "__obsVisionFieldMask";

/** Hides the typed text of every field (in open shadow roots too); returns how many were hidden. */
function hideTypedText(selector: string, state: string): number {
  const fields: any[] = [];
  const visit = (root: any) => {
    fields.push(...root.querySelectorAll(selector));
    for (const element of root.querySelectorAll("*")) if (element.shadowRoot) visit(element.shadowRoot);
  };
  visit((globalThis as any).document);
  const hidden: { field: any; style: string | null }[] = [];
  for (const field of fields) {
    if (field.value === "") continue;
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
function showTypedText(state: string): void {
  const hidden = ((globalThis as any)[state] ?? []) as { field: any; style: string | null }[];
  for (const { field, style } of hidden) {
    // Set first, even when there was none: Chromium writes a changed inline style back to the
    // attribute lazily, and a removeAttribute alone can leave an empty style="" behind.
    field.setAttribute("style", style ?? "");
    if (style === null) field.removeAttribute("style");
  }
  delete (globalThis as any)[state];
}

/** A base64 PNG of the viewport with the fields' typed text hidden; the page is left as it was. */
export async function maskedScreenshot(browser: Browser): Promise<string> {
  await browser.execute(hideTypedText, TYPED_FIELDS, STATE);
  try {
    return await browser.takeScreenshot();
  } finally {
    await browser.execute(showTypedText, STATE).catch(() => {});
  }
}

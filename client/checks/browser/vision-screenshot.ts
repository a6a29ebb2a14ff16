// biome-ignore-all lint/suspicious/noExplicitAny: the functions passed to execute() run in the page, without DOM types
/**
 * The screenshot --vision sends the model. What is typed into form fields is hidden in it: a
 * secret typed into a field that is not a password field (an API key, a one-time code) would
 * otherwise reach the model as pixels, where no redaction can find it. The text snapshot still
 * lists the fields' values, redacted, so the model loses nothing it needs.
 */
import type { Browser } from "webdriverio";

const STYLE_ID = "obs-vision-field-mask";

/** Inputs that show a label, a box or a picker rather than typed text. */
const NOT_TYPED = ["button", "submit", "reset", "image", "checkbox", "radio", "range", "color", "file"];
const FIELDS = [`input${NOT_TYPED.map((type) => `:not([type=${type}])`).join("")}`, "textarea"];

/** Typed text drawn transparent, placeholders kept: layout, borders and focus stay as the page has them. */
export const FIELD_MASK_CSS = [
  `${FIELDS.join(", ")} { color: transparent !important; -webkit-text-fill-color: transparent !important;`,
  "text-shadow: none !important; caret-color: transparent !important; transition: none !important; }",
  `${FIELDS.map((field) => `${field}::placeholder`).join(", ")} { color: GrayText !important;`,
  "-webkit-text-fill-color: GrayText !important; }",
].join("\n");

/** A base64 PNG of the viewport with the fields' typed text hidden; the page is left as it was. */
export async function maskedScreenshot(browser: Browser): Promise<string> {
  await browser.execute(
    (id: string, css: string) => {
      const doc = (globalThis as any).document;
      if (doc.getElementById(id)) return;
      const style = doc.createElement("style");
      style.id = id;
      style.textContent = css;
      (doc.head ?? doc.documentElement).appendChild(style);
    },
    STYLE_ID,
    FIELD_MASK_CSS,
  );
  try {
    return await browser.takeScreenshot();
  } finally {
    await browser
      .execute((id: string) => (globalThis as any).document.getElementById(id)?.remove(), STYLE_ID)
      .catch(() => {});
  }
}

/**
 * The screenshot --vision sends the model. What is typed into form fields is hidden in it: a
 * secret typed into a field that is not a password field (an API key, a one-time code) would
 * otherwise reach the model as pixels, where no redaction can find it. The text snapshot still
 * lists the fields' values, redacted, so the model loses nothing it needs.
 */
import type { Browser } from "webdriverio";
import { withFieldsHidden } from "./field-mask.js";

/** A base64 PNG of the viewport with the fields' typed text hidden; the page is left as it was. */
export async function maskedScreenshot(browser: Browser): Promise<string> {
  return withFieldsHidden(browser, null, () => browser.takeScreenshot());
}

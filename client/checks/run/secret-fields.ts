// biome-ignore-all lint/suspicious/noExplicitAny: the functions passed to execute() run in the page, without DOM types; the browser is webdriverio's
/**
 * Screenshots obs writes (each step's, a failure's) with the text of every form field that
 * holds a secret hidden: redaction cannot reach pixels, and a secret typed into a field that is
 * not a password field would otherwise be readable in the report. Other fields keep their
 * values, which are often the evidence (a quantity, a search term). Which fields hold a secret
 * is decided here, by the test's redaction; the page only reports values and hides what it is
 * told to (browser/field-mask.ts, the mechanism --vision's screenshots use too).
 */
import { typedFieldValues, withFieldsHidden } from "../browser/field-mask.js";

/** What this needs of the page: BrowserPage has it. */
export interface ScreenshotPage {
  screenshot(path: string): Promise<void>;
  /** The raw webdriverio browser; only execute() is used. */
  browser: any;
}

/** The indexes of the values a redaction changes: the fields that hold a secret. Pure. */
export function secretFieldIndexes(values: string[], redact: (text: string) => string): number[] {
  return values.flatMap((value, index) => (value !== "" && redact(value) !== value ? [index] : []));
}

/**
 * Takes the screenshot with the secret-holding fields' text hidden, and puts them back after.
 * With no secrets known it is just the screenshot.
 */
export async function screenshotHidingSecrets(
  page: ScreenshotPage,
  path: string,
  secrets: { empty: boolean; redact(text: string): string },
): Promise<void> {
  if (secrets.empty) return page.screenshot(path);
  const values = await typedFieldValues(page.browser);
  const hidden = secretFieldIndexes(values, (text) => secrets.redact(text));
  if (hidden.length === 0) return page.screenshot(path);
  await withFieldsHidden(page.browser, hidden, () => page.screenshot(path));
}

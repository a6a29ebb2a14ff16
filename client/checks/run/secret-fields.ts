// biome-ignore-all lint/suspicious/noExplicitAny: the functions passed to execute() run in the page, without DOM types; the browser is webdriverio's
/**
 * Screenshots obs writes (each step's, a failure's) with the text of every form field that
 * holds a secret hidden: redaction cannot reach pixels, and a secret typed into a field that is
 * not a password field would otherwise be readable in the report. Other fields keep their
 * values, which are often the evidence (a quantity, a search term). Which fields hold a secret
 * is decided here, by the test's redaction; the page only reports values and hides what it is
 * told to.
 */

/** What this needs of the page: BrowserPage has it. */
export interface ScreenshotPage {
  screenshot(path: string): Promise<void>;
  /** The raw webdriverio browser; only execute() is used. */
  browser: any;
}

const FIELDS = "input, textarea";
/** Where the page keeps each hidden field's own inline style, to put it back. */
const SAVED = "data-obs-hidden-style";

function fieldValues(selector: string): string[] {
  return Array.from((globalThis as any).document.querySelectorAll(selector), (field: any) =>
    typeof field.value === "string" ? field.value : "",
  );
}

function hideFields(selector: string, indexes: number[], saved: string): void {
  const fields = Array.from((globalThis as any).document.querySelectorAll(selector)) as any[];
  const dots = (globalThis as any).CSS?.supports?.("-webkit-text-security", "disc") === true;
  for (const index of indexes) {
    const field = fields[index];
    if (!field) continue;
    field.setAttribute(saved, field.getAttribute("style") ?? "");
    if (dots) field.style.setProperty("-webkit-text-security", "disc", "important");
    else field.style.setProperty("color", "transparent", "important");
  }
}

function restoreFields(saved: string): void {
  for (const field of (globalThis as any).document.querySelectorAll(`[${saved}]`)) {
    const style = field.getAttribute(saved);
    if (style) field.setAttribute("style", style);
    else field.removeAttribute("style");
    field.removeAttribute(saved);
  }
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
  const values = (await page.browser.execute(fieldValues, FIELDS)) as string[];
  const hidden = secretFieldIndexes(values, (text) => secrets.redact(text));
  if (hidden.length === 0) return page.screenshot(path);
  await page.browser.execute(hideFields, FIELDS, hidden, SAVED);
  try {
    await page.screenshot(path);
  } finally {
    await page.browser.execute(restoreFields, SAVED);
  }
}

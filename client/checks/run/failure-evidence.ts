/**
 * What the page looked like when a test failed (Playwright's `screenshot: "only-on-failure"`):
 * a PNG, the URL and the page snapshot as the model reads it, saved under
 * `<report-dir>/failures/<file>/<test>/` while the test's browser is still open. Every step is
 * bounded, so a browser that no longer answers (a timeout, a crash) costs seconds, not the run.
 */

import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";
import { formatSnapshot } from "../agent/page-snapshot.js";
import type { RawSnapshot } from "../agent/snapshot-script.js";
import { withoutCredentials } from "../browser/browser-page.js";
import type { FailureEvidence } from "../report/run-result.js";
import { screenshotHidingSecrets } from "./secret-fields.js";

export const FAILURE_DIR = "failures";
export const FAILURE_SCREENSHOT = "screenshot.png";
export const FAILURE_SNAPSHOT = "snapshot.txt";
/** The longest the whole capture may take. */
export const EVIDENCE_BUDGET_MS = 5_000;

/** What the capture needs of the page: BrowserPage has it. */
export interface EvidencePage {
  snapshot(): Promise<RawSnapshot>;
  screenshot(path: string): Promise<void>;
  // biome-ignore lint/suspicious/noExplicitAny: the raw webdriverio browser; only getUrl() is used
  browser: any;
}

/** `promise`'s value, or null when it fails or is not settled by `until` (epoch ms). */
async function bounded<T>(promise: Promise<T>, until: number): Promise<T | null> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<null>((resolve) => {
    timer = setTimeout(() => resolve(null), Math.max(until - Date.now(), 0));
  });
  try {
    return await Promise.race([promise.catch(() => null), late]);
  } finally {
    clearTimeout(timer);
  }
}

/** The folder of one attempt's evidence: a retry's goes in `retry-N` under the first's. */
export function evidenceDir(reportDir: string, fileSlug: string, testSlug: string, attempt: number): string {
  const base = join(reportDir, FAILURE_DIR, fileSlug, testSlug);
  return attempt > 1 ? join(base, `retry-${attempt - 1}`) : base;
}

/**
 * Captures the evidence into `dir` (emptied first); paths in the result are relative to
 * `reportDir`. Text passes through the test's secrets' redaction before it is written; in the
 * screenshot, fields holding a secret have their text hidden (secret-fields.ts). Text the page
 * itself shows is pixels, which no redaction reaches.
 */
export async function captureFailureEvidence(
  page: EvidencePage,
  dir: string,
  reportDir: string,
  secrets: { empty: boolean; redact(text: string): string },
  budgetMs = EVIDENCE_BUDGET_MS,
): Promise<FailureEvidence> {
  const redact = (text: string) => secrets.redact(text);
  const until = Date.now() + budgetMs;
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const screenshotPath = join(dir, FAILURE_SCREENSHOT);
  const shot = await bounded(
    screenshotHidingSecrets(page, screenshotPath, secrets).then(() => true),
    until,
  );
  const snapshot = await bounded(page.snapshot(), until);
  const url = snapshot?.url ?? (await bounded(Promise.resolve(page.browser?.getUrl?.()), until));
  let snapshotFile: string | null = null;
  if (snapshot) {
    snapshotFile = join(dir, FAILURE_SNAPSHOT);
    writeFileSync(snapshotFile, `${redact(formatSnapshot(snapshot))}\n`);
  }
  if (!shot) rmSync(screenshotPath, { force: true });
  return {
    url: typeof url === "string" ? redact(withoutCredentials(url)) : null,
    screenshot: shot ? relative(reportDir, screenshotPath) : null,
    snapshot: snapshotFile ? relative(reportDir, snapshotFile) : null,
  };
}

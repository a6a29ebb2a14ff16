/** Small pure formatters the HTML report shares: durations, statuses, and paths to its images. */
import type { TestResult } from "../run-result.js";

/** "420 ms", "2.5 s", "3 min 5 s": what a person reads at a glance. */
export function duration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  const seconds = Math.round(ms / 1000);
  return `${Math.floor(seconds / 60)} min ${seconds % 60} s`;
}

/** What the report calls a test's outcome: a test that passed on a retry is "flaky". */
export type ShownStatus = "passed" | "failed" | "flaky" | "skipped";

export function shownStatus(test: TestResult): ShownStatus {
  return test.status === "passed" && test.flaky ? "flaky" : test.status;
}

/**
 * The address of a report file (a screenshot, a snapshot) from the page, which lives in
 * `<report-dir>/report/`: report paths are relative to the report directory, so `../` leads
 * back to it. Each segment is percent-encoded, so a path is only ever a relative path; one that
 * is absolute or climbs out of the report directory is not linked at all (null).
 */
export function assetUrl(path: string | null): string | null {
  if (!path) return null;
  const segments = path.replace(/\\/g, "/").split("/");
  if (segments[0] === "" || /^[a-z]:$/i.test(segments[0] ?? "")) return null;
  if (segments.some((segment) => segment === ".." || segment === "")) return null;
  return `../${segments
    .filter((segment) => segment !== ".")
    .map(encodeURIComponent)
    .join("/")}`;
}

/** "1 test", "3 tests". */
export function count(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`;
}

/**
 * The transport under ObsClient (obs-client.ts): one GET on the collector's query API, its
 * failures turned into the spec's exit codes. Commands call ObsClient, never this.
 */
import { get, type IncomingMessage } from "node:http";
import { ArgumentError, LifecycleError } from "../lifecycle/lifecycle-error.js";

export const TIMEOUT_MS = 10_000;

/**
 * One GET, over node:http rather than fetch: fetch loads undici on first use, which costs a
 * noticeable share of every short-lived command's start-up (docs/PERFORMANCE.md).
 */
function fetchText(url: URL, timeoutMs: number): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const request = get(url, { agent: false, timeout: timeoutMs }, (response: IncomingMessage) => {
      const chunks: Buffer[] = [];
      response.on("data", (chunk: Buffer) => chunks.push(chunk));
      response.on("end", () =>
        resolve({ status: response.statusCode ?? 0, text: Buffer.concat(chunks).toString("utf8") }),
      );
      response.on("error", reject);
    });
    request.on("timeout", () => request.destroy(Object.assign(new Error("timeout"), { name: "TimeoutError" })));
    request.on("error", reject);
  });
}

/**
 * GET `path` with `query` on the collector at `baseUrl` (a name given twice is sent twice). Failures become the spec's exit codes:
 * unreachable 3, refused parameters 2, unknown id or store failure 4, no answer in time 5.
 */
export async function requestJson<T>(
  baseUrl: string,
  path: string,
  query: Iterable<readonly [string, string]> = [],
  timeoutMs: number = TIMEOUT_MS,
): Promise<T> {
  const url = new URL(path, `${baseUrl}/`);
  for (const [key, value] of query) url.searchParams.append(key, value);
  let response: { status: number; text: string };
  try {
    response = await fetchText(url, timeoutMs);
  } catch (error) {
    const failure = error as NodeJS.ErrnoException;
    if (failure.name === "TimeoutError") {
      throw new LifecycleError("timeout", `no answer from ${baseUrl} within ${timeoutMs / 1000} s`, { url: url.href });
    }
    throw new LifecycleError(
      "collector_unavailable",
      `no collector answers at ${baseUrl} (${failure.code ?? failure.message})`,
      { url: url.href },
    );
  }
  // Node's HTTP server refuses a request line or header past its limit before obsd sees it,
  // with no JSON: long filter text (`--contains -` reads it from stdin), not a missing collector.
  if (response.status === 431 || response.status === 414) {
    throw new ArgumentError(
      `the request is too long for the collector to read (HTTP ${response.status}): shorten the filters' text`,
    );
  }
  let body: T & { error?: unknown };
  try {
    body = JSON.parse(response.text) as T & { error?: unknown };
  } catch {
    throw new LifecycleError(
      "collector_unavailable",
      `${baseUrl} did not answer like an obs collector (status ${response.status})`,
    );
  }
  if (response.status >= 200 && response.status < 300) return body;
  const message = typeof body.error === "string" ? body.error : `status ${response.status}`;
  if (response.status === 400) throw new ArgumentError(message);
  if (response.status === 404) throw new LifecycleError("not_found", message);
  throw new LifecycleError(response.status >= 500 ? "store_failure" : "query_failure", message);
}

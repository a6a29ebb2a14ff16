import { LifecycleError } from "../lifecycle/lifecycle-error.js";

const TIMEOUT_MS = 10_000;

/**
 * GET on the collector's query API. Failures become the spec's exit codes: unreachable 3,
 * refused parameters 2, unknown id or store failure 4, no answer in time 5.
 */
export async function getJson<T>(baseUrl: string, path: string, query: Record<string, string> = {}): Promise<T> {
  const url = new URL(path, `${baseUrl}/`);
  for (const [key, value] of Object.entries(query)) url.searchParams.set(key, value);
  let response: Response;
  try {
    response = await fetch(url, { signal: AbortSignal.timeout(TIMEOUT_MS) });
  } catch (error) {
    const cause = (error as { name?: string; cause?: { code?: string } }) ?? {};
    if (cause.name === "TimeoutError") {
      throw new LifecycleError("timeout", `no answer from ${baseUrl} within ${TIMEOUT_MS / 1000} s`, { url: url.href });
    }
    throw new LifecycleError(
      "collector_unavailable",
      `no collector answers at ${baseUrl} (${cause.cause?.code ?? "unreachable"})`,
      {
        url: url.href,
      },
    );
  }
  const text = await response.text();
  let body: T & { error?: unknown };
  try {
    body = JSON.parse(text) as T & { error?: unknown };
  } catch {
    throw new LifecycleError(
      "collector_unavailable",
      `${baseUrl} did not answer like an obs collector (status ${response.status})`,
    );
  }
  if (response.ok) return body;
  const message = typeof body.error === "string" ? body.error : `status ${response.status}`;
  if (response.status === 400) throw new LifecycleError("invalid_argument", message);
  if (response.status === 404) throw new LifecycleError("not_found", message);
  throw new LifecycleError(response.status >= 500 ? "store_failure" : "query_failure", message);
}

/**
 * POST JSON to a model API with retries: 429 and 5xx (and network failures) are retried with
 * exponential backoff and jitter, honouring `Retry-After`; other errors fail at once.
 */
import { ProviderError } from "./model-provider.js";

export interface RetryPolicy {
  attempts: number;
  baseDelayMs: number;
  maxDelayMs: number;
}

export const DEFAULT_RETRY: RetryPolicy = { attempts: 5, baseDelayMs: 500, maxDelayMs: 20_000 };

export function isRetryable(status: number): boolean {
  return status === 429 || status >= 500;
}

/** The wait before retry `attempt` (1-based): Retry-After when given, else capped backoff. */
export function retryDelayMs(
  attempt: number,
  retryAfter: string | null,
  policy: RetryPolicy,
  random = Math.random,
): number {
  const seconds = retryAfter === null ? Number.NaN : Number(retryAfter);
  if (Number.isFinite(seconds) && seconds >= 0) return Math.min(seconds * 1000, policy.maxDelayMs);
  const exponential = Math.min(policy.baseDelayMs * 2 ** (attempt - 1), policy.maxDelayMs);
  return Math.round(exponential / 2 + (random() * exponential) / 2);
}

export async function postModelJson(
  url: string,
  headers: Record<string, string>,
  body: unknown,
  policy: RetryPolicy = DEFAULT_RETRY,
  timeoutMs = 120_000,
): Promise<unknown> {
  let lastProblem = "";
  for (let attempt = 1; attempt <= policy.attempts; attempt++) {
    let response: Response;
    try {
      response = await fetch(url, {
        method: "POST",
        headers: { "content-type": "application/json", ...headers },
        body: JSON.stringify(body),
        signal: AbortSignal.timeout(timeoutMs),
      });
    } catch (error) {
      lastProblem = `${url} did not answer (${(error as Error).message})`;
      if (attempt < policy.attempts) await sleep(retryDelayMs(attempt, null, policy));
      continue;
    }
    const text = await response.text();
    if (response.ok) {
      try {
        return JSON.parse(text);
      } catch {
        throw new ProviderError(`${url} answered ${response.status} with a body that is not JSON`, response.status);
      }
    }
    lastProblem = `${url} answered ${response.status}: ${text.slice(0, 300)}`;
    if (!isRetryable(response.status)) throw new ProviderError(lastProblem, response.status);
    if (attempt < policy.attempts) await sleep(retryDelayMs(attempt, response.headers.get("retry-after"), policy));
  }
  throw new ProviderError(`gave up after ${policy.attempts} attempts: ${lastProblem}`);
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

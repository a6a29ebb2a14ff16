/**
 * What to do after an upstream answered, as the OTLP specification's exporter rules say
 * (protocol/exporter.md and otlp.md, "Failures"): some answers mean "try the same request
 * again later", every other failure is permanent for that request and retrying it would only
 * repeat the refusal forever.
 */

export type SendOutcome =
  | { kind: "ok" }
  /** `timedOut`: no answer came in time (a batch that is too large for the path may do that every time). */
  | { kind: "retry"; reason: string; retryAfterMs: number | null; timedOut?: boolean }
  /**
   * `perRequest`: a refusal that may concern only some of a batch's requests (HTTP 400 and 413,
   * gRPC INVALID_ARGUMENT and RESOURCE_EXHAUSTED), so the batch is split before anything is
   * dropped; others (401, 403, 404, UNAUTHENTICATED...) concern the destination, and the batch
   * is dropped whole.
   */
  | { kind: "permanent"; reason: string; perRequest: boolean };

/** OTLP/HTTP: 429, 502, 503 and 504 are retryable; `Retry-After` is honoured on them. */
const RETRYABLE_HTTP = new Set([429, 502, 503, 504]);

/**
 * OTLP/gRPC's retryable codes: CANCELLED, DEADLINE_EXCEEDED, ABORTED, OUT_OF_RANGE, UNAVAILABLE,
 * DATA_LOSS. RESOURCE_EXHAUSTED is retryable in the specification only with RetryInfo, which obs
 * does not read: without it (a message over the server's size limit) a retry repeats the
 * refusal forever, so it is permanent here, and the batch is split before anything is dropped.
 */
const RETRYABLE_GRPC = new Set([1, 4, 10, 11, 14, 15]);

/** `Retry-After` as milliseconds: delay-seconds or an HTTP date; null when absent or unreadable. */
export function parseRetryAfter(value: string | undefined, nowMs: number): number | null {
  if (value === undefined) return null;
  const text = value.trim();
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  const at = Date.parse(text);
  return Number.isNaN(at) ? null : Math.max(0, at - nowMs);
}

export function httpOutcome(status: number, retryAfter: string | undefined, nowMs: number): SendOutcome {
  if (status >= 200 && status < 300) return { kind: "ok" };
  if (RETRYABLE_HTTP.has(status)) {
    return { kind: "retry", reason: `HTTP ${status}`, retryAfterMs: parseRetryAfter(retryAfter, nowMs) };
  }
  return { kind: "permanent", reason: `HTTP ${status}`, perRequest: status === 400 || status === 413 };
}

export function grpcOutcome(code: number, message: string): SendOutcome {
  if (code === 0) return { kind: "ok" };
  const reason = `gRPC status ${code}${message ? `: ${message}` : ""}`;
  return RETRYABLE_GRPC.has(code)
    ? { kind: "retry", reason, retryAfterMs: null }
    : { kind: "permanent", reason, perRequest: code === 3 || code === 8 };
}

export interface BackoffPolicy {
  initialMs: number;
  maxMs: number;
  /** The longest `Retry-After` obeyed; a longer one is cut to this (an upstream may ask for hours). */
  maxRetryAfterMs: number;
}

/**
 * Short waits, for obs's upstreams are near (a team's Collector) and an outage usually ends
 * with a restart: the first retry after a quarter second, doubling to at most 5 s.
 */
export const DEFAULT_BACKOFF: BackoffPolicy = { initialMs: 250, maxMs: 5_000, maxRetryAfterMs: 60_000 };

/**
 * The wait before retry number `attempt` (1 for the first): exponential with "equal jitter"
 * (half fixed, half random), so destinations that failed together do not retry in step; an
 * upstream's Retry-After wins when it asks for longer.
 */
export function retryDelayMs(
  attempt: number,
  retryAfterMs: number | null,
  policy: BackoffPolicy = DEFAULT_BACKOFF,
  random: () => number = Math.random,
): number {
  const ceiling = Math.min(policy.maxMs, policy.initialMs * 2 ** Math.min(attempt - 1, 30));
  const backoff = ceiling / 2 + random() * (ceiling / 2);
  if (retryAfterMs === null) return backoff;
  return Math.max(backoff, Math.min(retryAfterMs, policy.maxRetryAfterMs));
}

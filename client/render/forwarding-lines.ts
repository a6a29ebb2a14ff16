import type { ForwardingStatusRecord } from "../../shared/api-records.js";
import { safeText } from "./table.js";

/**
 * One line per forwarding destination, for `obs status` and `obs monitor status`: its state,
 * how far behind it is, and its counters. The upstream's own words (an HTTP body's status
 * text, a gRPC `grpc-message`, percent-decoded) reach `lastError`, and the URL is configured
 * text: both are printed with control characters escaped, as telemetry is.
 */
export function forwardingLines(destinations: readonly ForwardingStatusRecord[] | undefined, indent: string): string[] {
  return (destinations ?? []).map((d) => {
    const error = d.lastError ? safeText(d.lastError) : null;
    const state = d.state === "ok" ? "ok" : `retrying since ${d.retryingSince ?? "?"}${error ? ` (${error})` : ""}`;
    const lag = d.lagRecords === 0 ? "caught up" : `${d.lagRecords} records, ${d.lagSeconds.toFixed(1)} s behind`;
    const last = d.state === "ok" && error ? `; last error ${error}` : "";
    return `${indent}forwards  ${safeText(d.url)} (${d.protocol}): ${state}; ${lag}; sent ${d.sent}, retried ${d.retried}, dropped ${d.dropped}${last}`;
  });
}

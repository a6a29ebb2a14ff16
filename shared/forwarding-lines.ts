import type { ForwardingStatusRecord } from "./api-records.js";

/**
 * One line per forwarding destination, for `obs status` and `obs monitor status`: its state,
 * how far behind it is, and its counters.
 */
export function forwardingLines(destinations: readonly ForwardingStatusRecord[] | undefined, indent: string): string[] {
  return (destinations ?? []).map((d) => {
    const state =
      d.state === "ok" ? "ok" : `retrying since ${d.retryingSince ?? "?"}${d.lastError ? ` (${d.lastError})` : ""}`;
    const lag = d.lagRecords === 0 ? "caught up" : `${d.lagRecords} records, ${d.lagSeconds.toFixed(1)} s behind`;
    const last = d.state === "ok" && d.lastError ? `; last error ${d.lastError}` : "";
    return `${indent}forwards  ${d.url} (${d.protocol}): ${state}; ${lag}; sent ${d.sent}, retried ${d.retried}, dropped ${d.dropped}${last}`;
  });
}

/**
 * The services table's rows: the services seen in the window joined with the trace stats
 * grouped by root service, newest activity first. A service that only appears inside other
 * services' traces (no root spans) keeps its row with no figures. Pure.
 */
import type { ServiceRecord } from "../../../../shared/api-records.js";
import { parseDuration } from "../../../../shared/duration.js";
import type { StatsAnswerRow } from "../../../../shared/query-types.js";

export interface ServiceRow {
  name: string;
  /** ms since the epoch of the service's newest span, log or metric point in the window. */
  lastSeenMs: number;
  /** Traces rooted in this service in the window (undefined: none). */
  traces: number | undefined;
  /** Root traces per second over the window. */
  ratePerSecond: number | undefined;
  /** Fraction of root traces that failed, 0 to 1. */
  errorRate: number | undefined;
  /** p95 of root trace durations, ms. */
  p95Ms: number | undefined;
}

export interface ServiceStats {
  count: readonly StatsAnswerRow[];
  errorRate: readonly StatsAnswerRow[];
  p95: readonly StatsAnswerRow[];
}

/** The window's length in seconds from its lookback text (`15m`); undefined when it is not a duration. */
export function windowSeconds(lookback: string): number | undefined {
  try {
    return parseDuration(lookback) / 1000;
  } catch {
    return undefined;
  }
}

/** Events per second from a count over the lookback window; undefined when the window is unreadable. */
export function ratePerSecond(count: number, lookback: string): number | undefined {
  const seconds = windowSeconds(lookback);
  return seconds === undefined ? undefined : count / seconds;
}

function byGroup(rows: readonly StatsAnswerRow[]): Map<string, number> {
  const values = new Map<string, number>();
  for (const row of rows) if (row.group !== null) values.set(row.group, row.value);
  return values;
}

/** One row per service, newest activity first, then by name. */
export function serviceRows(services: readonly ServiceRecord[], stats: ServiceStats, lookback: string): ServiceRow[] {
  const counts = byGroup(stats.count);
  const errorRates = byGroup(stats.errorRate);
  const p95s = byGroup(stats.p95);
  return services
    .map((service): ServiceRow => {
      const traces = counts.get(service.name);
      return {
        name: service.name,
        lastSeenMs: Date.parse(service.lastSeenAt),
        traces,
        ratePerSecond: traces === undefined ? undefined : ratePerSecond(traces, lookback),
        errorRate: errorRates.get(service.name),
        p95Ms: p95s.get(service.name),
      };
    })
    .sort((a, b) => b.lastSeenMs - a.lastSeenMs || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

/** A rate with 3 significant digits and its unit: `12.4/s`, `0.00361/s`; `0/s` for none. */
export function formatRate(perSecond: number): string {
  if (perSecond === 0) return "0/s";
  return `${Number(perSecond.toPrecision(3))}/s`;
}

/** A fraction as a percentage with at most one decimal: `15.4%`, `0%`. */
export function formatPercent(fraction: number): string {
  return `${Number((fraction * 100).toFixed(1))}%`;
}

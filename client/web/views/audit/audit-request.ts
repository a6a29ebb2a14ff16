/**
 * The audit view's parameters ⇄ its query string, under the audit route's own names
 * (shared/query-routes.ts `audit`): `service`, `lookbackMinutes` (the current window),
 * `baselineMinutes` (the window just before it; the API's default is the current one's length),
 * `durationMin` (a slow-trace threshold in ms) and `until` (the current window's end, ISO 8601;
 * absent, now). Pure.
 */
import type { AuditRequest } from "../../../../shared/query-messages.js";
import { textOf } from "../../routing/query-filters.js";

/** The route's default current window, minutes. */
export const DEFAULT_AUDIT_MINUTES = 15;
/** The windows the view offers, minutes (the route takes any from 1 to 1440). */
export const AUDIT_WINDOWS = [5, 15, 30, 60, 180, 360, 1440] as const;

/**
 * The API request the URL asks for. Values are sent as the URL holds them: a window that is no
 * number (`lookbackMinutes=5m`), typed by hand, reaches the collector unchanged, so the view
 * shows the collector's own refusal of it instead of silently auditing the default window.
 */
export function auditRequestOf(query: URLSearchParams): AuditRequest {
  const asTyped = (name: string) => textOf(query, name) as unknown as number | undefined;
  const request: AuditRequest = {};
  const service = textOf(query, "service");
  if (service !== undefined) request.service = service;
  const lookbackMinutes = asTyped("lookbackMinutes");
  if (lookbackMinutes !== undefined) request.lookbackMinutes = lookbackMinutes;
  const baselineMinutes = asTyped("baselineMinutes");
  if (baselineMinutes !== undefined) request.baselineMinutes = baselineMinutes;
  const durationMin = asTyped("durationMin");
  if (durationMin !== undefined) request.durationMin = durationMin;
  const until = textOf(query, "until");
  if (until !== undefined) request.until = until;
  return request;
}

/** A window of minutes as a person reads it: 5m, 1h, 3h, 24h, 90m. */
export function minutesLabel(minutes: number): string {
  return minutes >= 60 && minutes % 60 === 0 ? `${minutes / 60}h` : `${minutes}m`;
}

/** The window choices with the URL's own value among them. */
export function windowChoices(current: number | undefined): number[] {
  const choices: number[] = [...AUDIT_WINDOWS];
  if (current !== undefined && !choices.includes(current)) choices.push(current);
  return choices.sort((a, b) => a - b);
}

/** The logs view's windows with their lengths, minutes (components/time-range.tsx offers these). */
const LOG_LOOKBACKS: [string, number][] = [
  ["5m", 5],
  ["15m", 15],
  ["1h", 60],
  ["6h", 360],
  ["24h", 1440],
];

/** The shortest logs-view window that reaches back from `nowMs` to `startMs` (the API's longest, 24h, at most). */
export function logsLookbackFor(startMs: number, nowMs: number): string {
  const minutes = (nowMs - startMs) / 60_000;
  return (
    (LOG_LOOKBACKS.find(([, length]) => length >= minutes) ?? LOG_LOOKBACKS[LOG_LOOKBACKS.length - 1])?.[0] ?? "24h"
  );
}

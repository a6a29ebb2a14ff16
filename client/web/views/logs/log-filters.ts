/**
 * The logs view's filters ⇄ its query string, under the log search route's own parameter names
 * (shared/query-routes.ts `searchLogs`), so `/ui/logs?service=web&severity=error&attr.user.id=7`
 * asks `/api/logs` exactly that. The route's `body` and `contains` are the same filter (a
 * substring of the body; a map or array body is matched as its JSON); the form offers
 * `contains`, the name the CLI's flag has, and still reads `body` from a link. Pure.
 */
import type { AttributeFilter, LogSearchRequest } from "../../../../shared/query-messages.js";
import { attrFiltersOf, parseAttrFilter, textOf } from "../../routing/query-filters.js";

export const ATTR_PREFIX = "attr.";
export const ATTR_CONTAINS_PREFIX = "attrContains.";

/** The search request a view's query string asks over `lookback` (the first page: no cursor). */
export function logRequestOf(query: URLSearchParams, lookback: string): LogSearchRequest {
  const request: LogSearchRequest = { lookback };
  const contains = textOf(query, "contains");
  const body = textOf(query, "body");
  const fields = {
    service: textOf(query, "service"),
    severity: textOf(query, "severity"),
    traceId: textOf(query, "traceId"),
    spanId: textOf(query, "spanId"),
    contains: contains ?? body,
  };
  for (const [name, value] of Object.entries(fields))
    if (value !== undefined) (request as Record<string, unknown>)[name] = value;
  const attr = attrFiltersOf(query, ATTR_PREFIX);
  if (attr.length > 0) request.attr = attr;
  const attrContains = attrFiltersOf(query, ATTR_CONTAINS_PREFIX);
  if (attrContains.length > 0) request.attrContains = attrContains;
  return request;
}

/** The text filter's value as the form shows it. */
export function containsOf(query: URLSearchParams): string {
  return textOf(query, "contains") ?? textOf(query, "body") ?? "";
}

/** The query change that sets the text filter (and drops `body`, its alias). */
export function containsChange(text: string): Record<string, string | null> {
  return { contains: text.trim() || null, body: null };
}

/**
 * The query change for `key=value` typed in the attribute box (an exact match, `attr.KEY`), or
 * `key~text` (a substring match, `attrContains.KEY`); null when the text is neither.
 */
export function attrChange(text: string): Record<string, string> | null {
  const tilde = text.indexOf("~");
  const equals = text.indexOf("=");
  if (tilde > 0 && (equals < 0 || tilde < equals)) {
    const key = text.slice(0, tilde).trim();
    const value = text.slice(tilde + 1).trim();
    return key && value ? { [`${ATTR_CONTAINS_PREFIX}${key}`]: value } : null;
  }
  const filter = parseAttrFilter(text);
  if (!filter?.[0]) return null;
  return { [`${ATTR_PREFIX}${filter[0]}`]: filter[1] };
}

/** A filter shown as a removable chip: the query parameter it lives in and how it reads. */
export interface FilterChip {
  param: string;
  label: string;
}

/** The filters the form has no box for, as chips: attributes, and a span id from a link. */
export function filterChips(query: URLSearchParams): FilterChip[] {
  const chip =
    (prefix: string, sign: string) =>
    ([key, value]: AttributeFilter) => ({
      param: `${prefix}${key}`,
      label: `${key}${sign}${value}`,
    });
  const chips = [
    ...attrFiltersOf(query, ATTR_PREFIX).map(chip(ATTR_PREFIX, "=")),
    ...attrFiltersOf(query, ATTR_CONTAINS_PREFIX).map(chip(ATTR_CONTAINS_PREFIX, "~")),
  ];
  const spanId = textOf(query, "spanId");
  if (spanId) chips.push({ param: "spanId", label: `span ${spanId}` });
  return chips;
}

/** Any filter besides the window is set (an empty list then says "no logs match" instead of "no logs"). */
export function hasFilters(query: URLSearchParams): boolean {
  const request = logRequestOf(query, "");
  return Object.keys(request).some((key) => key !== "lookback");
}

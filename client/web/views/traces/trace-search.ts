/**
 * The traces view's search, between its form, its URL and its API request. Every filter lives
 * in the query string under the API's own parameter name (`service`, `status`, `operation`,
 * `durationMin`, `attr.KEY`, `lookback`, `limit`), so a link reproduces the search and the
 * request reads like the address. Pure.
 */
import type { AttributeFilter, TracesRequest } from "../../../../shared/query-messages.js";
import { DEFAULT_LOOKBACK } from "../../routing/lookback.js";
import { attrFiltersOf, textOf } from "../../routing/query-filters.js";

/** What the form shows: the URL's filters as text, unchecked (the collector checks them). */
export interface TraceSearchForm {
  service: string;
  /** "", "ok" or "error" (anything else typed in the URL is kept and refused by the collector). */
  status: string;
  operation: string;
  /** Milliseconds, as typed. */
  durationMin: string;
  attrs: AttributeFilter[];
}

/** The names the form owns in the query string (the window and page size are set elsewhere). */
const FIELDS = ["service", "status", "operation", "durationMin"] as const;

export function formOf(query: URLSearchParams): TraceSearchForm {
  return {
    service: query.get("service") ?? "",
    status: query.get("status") ?? "",
    operation: query.get("operation") ?? "",
    durationMin: query.get("durationMin") ?? "",
    attrs: attrFiltersOf(query),
  };
}

/**
 * The query-string changes that make the URL hold `form`: each field set or removed, and the
 * attribute filters replaced (a removed one becomes null, so setQuery deletes it).
 */
export function queryChangesOf(form: TraceSearchForm, current: URLSearchParams): Record<string, string | null> {
  const changes: Record<string, string | null> = {};
  for (const field of FIELDS) {
    const value = form[field].trim();
    changes[field] = value === "" ? null : value;
  }
  for (const [name] of current) if (name.startsWith("attr.")) changes[name] = null;
  for (const [key, value] of form.attrs) if (key) changes[`attr.${key}`] = value;
  return changes;
}

/** The form with one more attribute filter; a filter on a key already present replaces it. */
export function withAttr(form: TraceSearchForm, filter: AttributeFilter): TraceSearchForm {
  return { ...form, attrs: [...form.attrs.filter(([key]) => key !== filter[0]), filter] };
}

/** The form without the attribute filter on `key`. */
export function withoutAttr(form: TraceSearchForm, key: string): TraceSearchForm {
  return { ...form, attrs: form.attrs.filter(([name]) => name !== key) };
}

/**
 * The API request the URL asks for. Values are sent as the URL holds them: a `durationMin`
 * or `limit` that is no number, typed by hand, reaches the collector unchanged, so the view
 * shows the collector's own refusal of it instead of silently searching without it.
 */
export function tracesRequestOf(query: URLSearchParams): TracesRequest {
  const asTyped = (name: string) => textOf(query, name) as unknown as number | undefined;
  const request: TracesRequest = { lookback: query.get("lookback") || DEFAULT_LOOKBACK };
  const service = textOf(query, "service");
  if (service !== undefined) request.service = service;
  const status = textOf(query, "status");
  if (status !== undefined) request.status = status as "ok" | "error";
  const operation = textOf(query, "operation");
  if (operation !== undefined) request.operation = operation;
  const durationMin = asTyped("durationMin");
  if (durationMin !== undefined) request.durationMin = durationMin;
  const limit = asTyped("limit");
  if (limit !== undefined) request.limit = limit;
  const attr = attrFiltersOf(query);
  if (attr.length > 0) request.attr = attr;
  return request;
}

/** The search in words, for the empty state: `status error, service web, attr http.route=/orders`. */
export function describeSearch(query: URLSearchParams): string {
  const form = formOf(query);
  const parts: string[] = [];
  if (form.service) parts.push(`service ${form.service}`);
  if (form.status) parts.push(`status ${form.status}`);
  if (form.operation) parts.push(`root operation ${form.operation}`);
  if (form.durationMin) parts.push(`at least ${form.durationMin} ms`);
  for (const [key, value] of form.attrs) parts.push(`${key}=${value}`);
  return parts.length > 0 ? parts.join(", ") : "any trace";
}

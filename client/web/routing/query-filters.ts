/**
 * Filters from a view's query string, under the API's own names, so a view's URL and the API
 * request it makes read alike (`/ui/traces?service=web&attr.http.route=/cart` asks
 * `/api/traces?attr.http.route=/cart&service=web`). Pure.
 */
import type { AttributeFilter } from "../../../shared/query-messages.js";

/** `attr.KEY=VALUE` parameters, in the order given. */
export function attrFiltersOf(query: URLSearchParams, prefix = "attr."): AttributeFilter[] {
  const filters: AttributeFilter[] = [];
  for (const [name, value] of query)
    if (name.startsWith(prefix) && name.length > prefix.length) filters.push([name.slice(prefix.length), value]);
  return filters;
}

/** A parameter's text, or undefined when absent or empty (so the request leaves it out). */
export function textOf(query: URLSearchParams, name: string): string | undefined {
  const value = query.get(name);
  return value ? value : undefined;
}

/** A whole number parameter, or undefined when absent or not a number. */
export function numberOf(query: URLSearchParams, name: string): number | undefined {
  const value = query.get(name);
  if (!value) return undefined;
  const number = Number(value);
  return Number.isFinite(number) ? number : undefined;
}

/** Parses `key=value` text typed in a filter box into an attribute filter; null when there is no `=`. */
export function parseAttrFilter(text: string): AttributeFilter | null {
  const at = text.indexOf("=");
  if (at <= 0) return null;
  return [text.slice(0, at).trim(), text.slice(at + 1).trim()];
}

import { listOf } from "./any-value.js";
import type { ParsedScopes } from "./batch-scopes.js";
import { PayloadError } from "./payload-error.js";

export function requireObject<T>(value: unknown, path: string): T {
  if (value == null || typeof value !== "object" || Array.isArray(value)) {
    throw new PayloadError(`${path}: expected an object`);
  }
  return value as T;
}

/** Field names of one signal's export request: resource list, scope list, item list. */
export interface EnvelopeFields {
  resources: "resourceSpans" | "resourceLogs" | "resourceMetrics";
  scopes: "scopeSpans" | "scopeLogs" | "scopeMetrics";
  items: "spans" | "logRecords" | "metrics";
}

/** Where an item sits: its resource and scope (indexes into the batch's lists) and its path. */
export interface ItemPlace {
  resource: number;
  scope: number;
  path: string;
}

/**
 * Walks the resource -> scope -> item nesting every OTLP export request shares, registering
 * resources and scopes and handing each item, as an object, to `visit`.
 */
export function walkEnvelope(
  request: unknown,
  fields: EnvelopeFields,
  scopes: ParsedScopes,
  visit: (item: Record<string, unknown>, place: ItemPlace) => void,
): void {
  const root = requireObject<Record<string, unknown>>(request, "request");
  const resources = listOf(root[fields.resources], fields.resources);
  for (let r = 0; r < resources.length; r++) {
    const rPath = `${fields.resources}[${r}]`;
    const rEntry = requireObject<Record<string, unknown>>(resources[r], rPath);
    const resource = scopes.addResource(rEntry.resource, rEntry.schemaUrl, rPath);
    const scopeList = listOf(rEntry[fields.scopes], `${rPath}.${fields.scopes}`);
    for (let s = 0; s < scopeList.length; s++) {
      const sPath = `${rPath}.${fields.scopes}[${s}]`;
      const sEntry = requireObject<Record<string, unknown>>(scopeList[s], sPath);
      const scope = scopes.addScope(sEntry.scope, sEntry.schemaUrl, sPath);
      const items = listOf(sEntry[fields.items], `${sPath}.${fields.items}`);
      for (let i = 0; i < items.length; i++) {
        const path = `${sPath}.${fields.items}[${i}]`;
        visit(requireObject(items[i], path), { resource, scope, path });
      }
    }
  }
}

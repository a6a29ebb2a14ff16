/** Input properties the search, stats and metrics tools share (beside common-inputs.ts). */
import { QUERY_ROUTES } from "../../../shared/query-routes.js";
import type { QueryMethod } from "../../../shared/query-types.js";

export const ATTRIBUTES_CONTAIN_PROPERTY = {
  type: "object",
  additionalProperties: { type: "string" },
  // As ATTRIBUTES_PROPERTY: an empty key would be refused in the API's words ("attrContains.").
  propertyNames: { minLength: 1 },
  description:
    'Attribute substring filters, key to text: {"db.statement": "select"} keeps items whose attribute contains the text (case-insensitive; numbers and booleans as their JSON text).',
} as const;

export const STATUS_PROPERTY = {
  type: "string",
  enum: ["ok", "error"],
  description: "error: only items with error status; ok: only the others",
} as const;

/** The page size a route uses when none is asked, and its cap (the route table's). */
export function routeLimit(method: QueryMethod): { default: number; cap: number } {
  const params = QUERY_ROUTES[method].params as Record<string, { default?: unknown; cap?: unknown }>;
  const { default: value, cap } = params.limit ?? {};
  if (typeof value !== "number" || typeof cap !== "number") throw new Error(`route ${method} has no limit`);
  return { default: value, cap };
}

/** A `limit` input: the API's default and cap, said for a model (a larger value is lowered to the cap). */
export function limitProperty(method: QueryMethod, what: string) {
  const { default: value, cap } = routeLimit(method);
  return {
    type: "integer",
    description: `${what} per page; default ${value}, at most ${cap}. max_bytes may keep fewer (then truncated, with a continuation).`,
  } as const;
}

/** Input properties several tools share, described once for a model. */

export const LOOKBACK_PROPERTY = {
  type: "string",
  description: "How far back to look, as a duration: 15m, 2h (at most 24h). Each tool has its own default window.",
} as const;

export const SERVICE_PROPERTY = {
  type: "string",
  description: "Exact service name (service.name), as list_services shows it",
} as const;

export const CURSOR_PROPERTY = {
  type: "string",
  description: "The cursor of a previous answer's continuation, unchanged, to fetch the next page",
} as const;

export const TRACE_ID_PROPERTY = {
  type: "string",
  pattern: "^[0-9a-fA-F]{32}$",
  description: "A trace id: 32 hex characters",
} as const;

export const SPAN_ID_PROPERTY = {
  type: "string",
  pattern: "^[0-9a-fA-F]{16}$",
  description: "A span id: 16 hex characters",
} as const;

/**
 * Attribute filters as an object: `{"http.route": "/cart"}` keeps items whose attribute equals
 * the value (the API's attr.KEY=VALUE).
 */
export const ATTRIBUTES_PROPERTY = {
  type: "object",
  additionalProperties: { type: "string" },
  // An empty key would reach the API as the parameter "attr.", refused in the API's words.
  propertyNames: { minLength: 1 },
  description:
    'Exact attribute filters, key to value: {"http.route": "/cart"}. Span, resource and scope attributes match.',
} as const;

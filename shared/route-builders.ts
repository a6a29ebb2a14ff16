/**
 * The pieces the query route tables (query-routes.ts, metric-routes.ts) are built from: answer
 * schemas and the parameters several routes share, so each route reads the same everywhere.
 */
import type { JsonSchema, ParamSpec } from "./query-routes.js";

export const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });

/** `{data: [ITEM], meta}`: a page of records. */
export function pageOf(item: string): JsonSchema {
  return {
    type: "object",
    required: ["data", "meta"],
    properties: { data: { type: "array", items: ref(item) }, meta: ref("PageMeta") },
    additionalProperties: false,
  };
}

/** `{data: RECORD}` (with `meta` when the answer is paged). */
export function one(record: string, withMeta: boolean): JsonSchema {
  return {
    type: "object",
    required: withMeta ? ["data", "meta"] : ["data"],
    properties: withMeta ? { data: ref(record), meta: ref("PageMeta") } : { data: ref(record) },
    additionalProperties: false,
  };
}

/** The default page window of lists and aggregates. */
export const DEFAULT_LOOKBACK = "15m";
/** Logs of one trace or span: the trace may be older than the default window, so look back the maximum. */
/**
 * The lookback of the routes of one trace's or span's logs: none by default, since the trace id
 * bounds them (a trace's detail lists its logs however old, and these routes page the same logs);
 * a lookback given narrows them, within the usual 24h.
 */
export const correlatedLookback: ParamSpec = {
  kind: "duration",
  description:
    "How far back to look, e.g. 15m, 2h, 1d; at most 24h (400 above). Default: no bound, every log of the trace or span (its id bounds them).",
  cap: "24h",
  flag: "since",
};
/** The most spans one answer about a trace holds; the rest are paged (/api/traces/{traceId}/spans). */
export const MAX_TRACE_SPANS = 10_000;

export const lookback = (defaultValue: string): ParamSpec => ({
  kind: "duration",
  description: `How far back to look, e.g. 15m, 2h, 1d; at most 24h (400 above). Default ${defaultValue}.`,
  default: defaultValue,
  cap: "24h",
  flag: "since",
});
export const limit = (defaultValue: number, cap: number): ParamSpec => ({
  kind: "positiveInteger",
  description: `Page size; default ${defaultValue}, capped at ${cap} (meta.limit shows the effective value).`,
  default: defaultValue,
  cap,
  flag: "limit",
});
export const cursor: ParamSpec = {
  kind: "text",
  description: "meta.nextCursor of the previous page, unchanged; only with the same filters.",
  flag: "cursor",
};
export const text = (description: string): ParamSpec => ({ kind: "text", description });
export const hex = (bytes: number, description: string): ParamSpec => ({ kind: "hexId", bytes, description });
export const service: ParamSpec = { ...text("Only this service.name."), flag: "service" };

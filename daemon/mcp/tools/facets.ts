/** `facets`: the values of a field an agent can filter by, most frequent first, with counts. */
import { FACET_FIELDS } from "../../../shared/query-routes.js";
import type { FacetValueRecord } from "../../../shared/query-types.js";
import { cutString, fitItems, toolInput, toolOutput } from "../budget.js";
import type { AnswerTail, McpTool, NextCall } from "../mcp-tool.js";
import { LOOKBACK_PROPERTY, SERVICE_PROPERTY } from "./common-inputs.js";
import { usableCalls } from "./next-calls.js";
import { withoutUndefined } from "./query-args.js";
import { limitProperty, routeLimit } from "./query-inputs.js";
import { label, quoted } from "./telemetry-text.js";

type FacetType = keyof typeof FACET_FIELDS;

/** The most values the API lists: an offset reaches into them, not past. */
const FACETS_CAP = routeLimit("facets").cap;

export interface FacetsArgs {
  type: FacetType;
  field: string;
  key?: string;
  service?: string;
  lookback?: string;
  limit?: number;
  offset?: number;
  max_bytes?: number;
}

export interface FacetsAnswer extends AnswerTail {
  type: FacetType;
  field: string;
  key?: string;
  lookback: string | null;
  offset: number;
  values: FacetValueRecord[];
}

/** The call that uses one facet value as a filter, or null when no tool filters by that field. */
export function searchByFacet(args: FacetsArgs, value: string, lookback: string | undefined): NextCall | null {
  const scope = withoutUndefined({ service: args.service, lookback });
  const named = (tool: string, filter: Record<string, unknown>, why: string): NextCall => ({
    tool,
    arguments: { ...scope, ...filter },
    why,
  });
  const keyValues = (key: string): NextCall =>
    named("facets", { type: args.type, field: "attribute_values", key }, `the values of ${label(key)}`);
  switch (`${args.type}.${args.field}`) {
    case "traces.service":
      return named("search_traces", { service: value }, `traces of ${label(value)}`);
    case "traces.operation":
      return named("search_traces", { operation: value }, `traces whose root is ${label(value)}`);
    case "traces.status":
      return named("search_traces", { status: value }, `traces with status ${label(value)}`);
    case "traces.attribute_keys":
    case "metrics.attribute_keys":
      return keyValues(value);
    case "traces.attribute_values":
      return args.key
        ? named("search_spans", { attributes: { [args.key]: value } }, `spans with ${label(args.key)}=${label(value)}`)
        : null;
    case "logs.service":
      return named("search_logs", { service: value }, `logs of ${label(value)}`);
    case "logs.severity":
      return named("search_logs", { severity: value }, `logs of severity ${label(value)}`);
    case "metrics.name":
      return {
        tool: "describe_metric",
        arguments: withoutUndefined({ name: value, service: args.service, lookback }),
        why: `what ${label(value)} measures and its attributes`,
      };
    case "metrics.service":
      return named("list_metrics", { service: value }, `the metrics of ${label(value)}`);
    default:
      return null;
  }
}

export const facets: McpTool<FacetsArgs, FacetsAnswer> = {
  name: "facets",
  title: "Filter values",
  description:
    "The values a field takes in the window, most frequent first, with counts: which services, root operations, statuses, attribute keys or an attribute's values (type traces, counted in traces or spans), which services, severities or scopes (type logs), which metric names, services or point attributes (type metrics, counted in series). Use it to learn the exact values the search tools filter by (an attribute key before its values: field attribute_values needs key). Default window 15m, at most 24h.",
  inputSchema: toolInput(
    {
      type: { type: "string", enum: Object.keys(FACET_FIELDS), description: "Which records: traces, logs or metrics" },
      field: {
        type: "string",
        enum: [...new Set(Object.values(FACET_FIELDS).flat())],
        description: `By type: ${Object.entries(FACET_FIELDS)
          .map(([type, fields]) => `${type}: ${fields.join(", ")}`)
          .join("; ")}`,
      },
      key: {
        type: "string",
        description: "The attribute key, for field attribute_values (refused with any other field)",
      },
      service: SERVICE_PROPERTY,
      lookback: LOOKBACK_PROPERTY,
      limit: limitProperty("facets", "Values"),
      offset: {
        type: "integer",
        minimum: 0,
        maximum: FACETS_CAP - 1,
        description: `Where to start in the values, most frequent first (0: the first); a continuation sets it. The first ${FACETS_CAP} values are the most any call reaches`,
      },
    },
    ["type", "field"],
  ),
  outputSchema: toolOutput(
    {
      type: { type: "string" },
      field: { type: "string" },
      key: { type: "string" },
      lookback: { type: ["string", "null"] },
      offset: { type: "integer", description: "The position of the first value shown, most frequent first" },
      values: {
        type: "array",
        items: {
          type: "object",
          properties: { value: { type: "string" }, count: { type: "integer" } },
          required: ["value", "count"],
        },
      },
    },
    ["type", "field", "lookback", "offset", "values"],
  ),
  async run(args, ctx) {
    const offset = args.offset ?? 0;
    // The API lists the most frequent values first, from the first: the values before the
    // offset are read again, and skipped here.
    const limit = Math.min(FACETS_CAP, offset + (args.limit ?? routeLimit("facets").default));
    const page = await ctx.api.facets(
      withoutUndefined({
        type: args.type,
        field: args.field,
        key: args.key,
        service: args.service,
        lookback: args.lookback,
        limit,
      }),
    );
    const lookback = page.meta.lookback ?? undefined;
    const whole = page.data.slice(offset);
    // The searches by the first values shown (whole: a cut value would match nothing).
    const nextOf = (shown: number) =>
      usableCalls(
        whole
          .slice(0, Math.min(2, shown))
          .map((item) => searchByFacet(args, item.value, lookback))
          .filter((call): call is NextCall => call !== null),
      );
    const rest = whole.map((item) => ({ ...item, value: cutString(item.value) }));
    // Past the API's cap no call reaches: truncated says more values exist, without a continuation.
    const more = page.meta.truncated && limit < FACETS_CAP;
    const { answer, kept } = fitItems(rest, ctx.maxBytes, (shown, cut) =>
      withoutUndefined({
        type: args.type,
        field: args.field,
        key: args.key === undefined ? undefined : cutString(args.key),
        lookback: page.meta.lookback,
        offset,
        values: [...shown],
        truncated: cut || page.meta.truncated,
        continuation:
          cut || more
            ? {
                tool: "facets",
                arguments: { ...args, offset: offset + shown.length },
                why: cut ? "the values cut to fit max_bytes" : "the less frequent values",
              }
            : undefined,
        next: nextOf(shown.length),
      }),
    );
    const top = page.data[0];
    const shown =
      offset > 0 || kept < rest.length
        ? `; ${kept} shown${offset > 0 ? ` from ${offset}` : ""}${kept < rest.length ? " within max_bytes" : ""}`
        : "";
    const summary = top
      ? `${page.data.length} values of ${args.type} ${args.field}${args.key ? ` ${quoted(args.key)}` : ""} in the last ${page.meta.lookback}, most frequent ${quoted(top.value)} (${top.count})${shown}${page.meta.truncated ? "; more values exist" : ""}.`
      : `No values of ${args.type} ${args.field}${args.key ? ` ${quoted(args.key)}` : ""} in the last ${page.meta.lookback}.`;
    return { structured: answer, summary };
  },
};

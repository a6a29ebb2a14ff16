/** `facets`: the values of a field an agent can filter by, most frequent first, with counts. */
import { FACET_FIELDS } from "../../../shared/query-routes.js";
import type { FacetValueRecord } from "../../../shared/query-types.js";
import { cutString, fitItems, toolInput, toolOutput } from "../budget.js";
import type { AnswerTail, McpTool, NextCall } from "../mcp-tool.js";
import { LOOKBACK_PROPERTY, SERVICE_PROPERTY } from "./common-inputs.js";
import { largerBudgetCall, usableCalls } from "./next-calls.js";
import { withoutUndefined } from "./query-args.js";
import { limitProperty, routeLimit } from "./query-inputs.js";
import { label, quoted } from "./telemetry-text.js";

type FacetType = keyof typeof FACET_FIELDS;

export interface FacetsArgs {
  type: FacetType;
  field: string;
  key?: string;
  service?: string;
  lookback?: string;
  limit?: number;
  max_bytes?: number;
}

export interface FacetsAnswer extends AnswerTail {
  type: FacetType;
  field: string;
  key?: string;
  lookback: string | null;
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
    },
    ["type", "field"],
  ),
  outputSchema: toolOutput(
    {
      type: { type: "string" },
      field: { type: "string" },
      key: { type: "string" },
      lookback: { type: ["string", "null"] },
      values: {
        type: "array",
        items: {
          type: "object",
          properties: { value: { type: "string" }, count: { type: "integer" } },
          required: ["value", "count"],
        },
      },
    },
    ["type", "field", "lookback", "values"],
  ),
  async run(args, ctx) {
    const page = await ctx.api.facets(
      withoutUndefined({
        type: args.type,
        field: args.field,
        key: args.key,
        service: args.service,
        lookback: args.lookback,
        limit: args.limit,
      }),
    );
    const lookback = page.meta.lookback ?? undefined;
    const next = usableCalls(
      page.data
        .slice(0, 2)
        .map((item) => searchByFacet(args, item.value, lookback))
        .filter((call): call is NextCall => call !== null),
    );
    const values = page.data.map((item) => ({ ...item, value: cutString(item.value) }));
    const cap = routeLimit("facets").cap;
    const { answer, kept } = fitItems(values, ctx.maxBytes, (shown, cut) => {
      const wider: NextCall | undefined = cut
        ? largerBudgetCall("facets", { ...args }, ctx.maxBytes, "the values cut to fit max_bytes")
        : page.meta.truncated && page.meta.limit < cap
          ? { tool: "facets", arguments: { ...args, limit: cap }, why: "the less frequent values" }
          : undefined;
      return withoutUndefined({
        type: args.type,
        field: args.field,
        key: args.key === undefined ? undefined : cutString(args.key),
        lookback: page.meta.lookback,
        values: [...shown],
        truncated: cut || page.meta.truncated,
        continuation: wider,
        next,
      });
    });
    const top = page.data[0];
    const summary = top
      ? `${page.data.length} values of ${args.type} ${args.field}${args.key ? ` ${quoted(args.key)}` : ""} in the last ${page.meta.lookback}, most frequent ${quoted(top.value)} (${top.count})${kept < page.data.length ? `; ${kept} shown within max_bytes` : ""}${page.meta.truncated ? "; more values exist" : ""}.`
      : `No values of ${args.type} ${args.field}${args.key ? ` ${quoted(args.key)}` : ""} in the last ${page.meta.lookback}.`;
    return { structured: answer, summary };
  },
};

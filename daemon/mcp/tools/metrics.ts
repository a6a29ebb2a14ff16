/** `list_metrics`, `query_metric` and `describe_metric`: the metrics signal as tools. */
import { formatDuration } from "../../../shared/duration.js";
import { addsUp, DEFAULT_AGGS, METRIC_AGGS, totalOf } from "../../../shared/metric-routes.js";
import type {
  MetricDetailRecord,
  MetricSeriesGroup,
  MetricSeriesRecord,
  MetricSummaryRecord,
} from "../../../shared/query-types.js";
import { cutLongStrings, cutString, fitItems, toolInput, toolOutput } from "../budget.js";
import type { AnswerTail, McpTool, NextCall } from "../mcp-tool.js";
import { ATTRIBUTES_PROPERTY, CURSOR_PROPERTY, LOOKBACK_PROPERTY, SERVICE_PROPERTY } from "./common-inputs.js";
import { fitSeries, roundValue, type SeriesGroupRow } from "./metric-series-fit.js";
import { largerBudgetCall, usableCalls } from "./next-calls.js";
import { searchPage } from "./paged-search.js";
import { attributePairs, traceOutlineCall, withoutUndefined } from "./query-args.js";
import { limitProperty, routeLimit } from "./query-inputs.js";
import { label, quoted } from "./telemetry-text.js";

/** A metric's description as rows carry it: a hint, not documentation. */
const DESCRIPTION_CHARS = 200;
/** The services describe_metric's summary names; the answer lists them all. */
const SUMMARY_SERVICES = 3;

const METRIC_NAME_PROPERTY = {
  type: "string",
  description: "The metric's exact name, as list_metrics shows it",
} as const;

type MetricType = MetricSummaryRecord["type"];

/** The metric types, as the answers name them. */
const METRIC_TYPES = ["gauge", "sum", "histogram", "exponential_histogram", "summary"] as const;

const METRIC_TYPE_PROPERTY = {
  type: "string",
  enum: METRIC_TYPES,
  description:
    "Where list_metrics lists the name more than once, with other types: the one of this type. Absent: the one written to most recently",
} as const;

const SUMMARY_PROPERTIES = {
  name: { type: "string" },
  type: { type: "string", enum: METRIC_TYPES },
  unit: { type: "string" },
  description: { type: "string", description: `Cut after ${DESCRIPTION_CHARS} characters` },
  temporality: { type: ["string", "null"], description: "delta or cumulative (sums, histograms); null otherwise" },
  monotonic: { type: ["boolean", "null"], description: "Sums: whether the sum only grows" },
  services: { type: "array", items: { type: "string" } },
  series_count: { type: "integer" },
  point_count: { type: "integer" },
  last_time: { type: "string", description: "ISO 8601" },
} as const;
const SUMMARY_REQUIRED = ["name", "type", "unit", "services", "series_count", "last_time"];

/** A metric as list_metrics and describe_metric answer it: snake_case, the description cut. */
export interface MetricSummaryRow {
  name: string;
  type: MetricSummaryRecord["type"];
  unit: string;
  description: string;
  temporality: MetricSummaryRecord["temporality"];
  monotonic: boolean | null;
  services: string[];
  series_count: number;
  point_count: number;
  last_time: string;
}

function metricSummary(metric: MetricSummaryRecord): MetricSummaryRow {
  return {
    name: cutString(metric.name),
    type: metric.type,
    unit: cutString(metric.unit),
    description: cutString(metric.description, DESCRIPTION_CHARS),
    temporality: metric.temporality,
    monotonic: metric.monotonic,
    services: metric.services.map((service) => cutString(service)),
    series_count: metric.seriesCount,
    point_count: metric.pointCount,
    last_time: metric.lastTime,
  };
}

function queryCall(name: string, extra: Record<string, unknown>, why: string): NextCall {
  return { tool: "query_metric", arguments: withoutUndefined({ name, ...extra }), why };
}

// ---- list_metrics ----

export interface ListMetricsArgs {
  service?: string;
  name?: string;
  lookback?: string;
  limit?: number;
  cursor?: string;
  max_bytes?: number;
}

export interface ListMetricsAnswer extends AnswerTail {
  lookback: string | null;
  metrics: MetricSummaryRow[];
}

export const listMetrics: McpTool<ListMetricsArgs, ListMetricsAnswer> = {
  name: "list_metrics",
  title: "List metrics",
  description:
    "The metrics with points in the window, by name: type (gauge, sum, histogram, ...), unit, temporality, the services sending them and how many series and points. Use it to find a metric's exact name (name narrows by substring, e.g. token or latency), then query_metric for its values or describe_metric for its attributes. Default window 15m, at most 24h.",
  inputSchema: toolInput({
    service: SERVICE_PROPERTY,
    name: { type: "string", description: "Substring of the metric's name" },
    lookback: LOOKBACK_PROPERTY,
    limit: limitProperty("listMetrics", "Metrics"),
    cursor: CURSOR_PROPERTY,
  }),
  outputSchema: toolOutput(
    {
      lookback: { type: ["string", "null"] },
      metrics: { type: "array", items: { type: "object", properties: SUMMARY_PROPERTIES, required: SUMMARY_REQUIRED } },
    },
    ["lookback", "metrics"],
  ),
  async run(args, ctx) {
    const filters = withoutUndefined({ service: args.service, name: args.name, lookback: args.lookback });
    return searchPage({
      tool: "list_metrics",
      noun: "metrics",
      args,
      defaultLimit: routeLimit("listMetrics").default,
      maxBytes: ctx.maxBytes,
      fetch: (page) => ctx.api.listMetrics(withoutUndefined({ ...filters, ...page })),
      build: (metrics, lookback, tail) => {
        const first = metrics[0];
        const window = withoutUndefined({ service: args.service, lookback: lookback ?? undefined });
        const next: NextCall[] = first
          ? usableCalls([
              queryCall(first.name, window, `the values of ${label(first.name)}`),
              {
                tool: "describe_metric",
                arguments: { name: first.name, ...window },
                why: `the attributes of ${label(first.name)}`,
              },
            ])
          : [];
        return { lookback, metrics: metrics.map(metricSummary), ...tail, next };
      },
    });
  },
};

// ---- query_metric ----

type MetricAgg = (typeof METRIC_AGGS)[keyof typeof METRIC_AGGS][number];

export interface QueryMetricArgs {
  name: string;
  type?: MetricType;
  group_by?: string[];
  agg?: MetricAgg;
  step?: string;
  service?: string;
  attributes?: Record<string, string>;
  lookback?: string;
  limit?: number;
  max_bytes?: number;
}

export interface QueryMetricAnswer extends AnswerTail {
  name: string;
  type: MetricSummaryRecord["type"];
  unit: string;
  agg: string;
  value_unit: string;
  step: string;
  step_ms: number;
  from: string;
  to: string;
  /** The start of the first bucket shown; each value after it is one step later. */
  first_bucket: string | null;
  /** The oldest buckets of the window left out to fit max_bytes. */
  dropped_buckets: number;
  groups: SeriesGroupRow[];
}

/** How each family of METRIC_AGGS reads to a caller (aggFamilyOf): a cumulative sum that may fall is a gauge's kind. */
const FAMILY_NAMES: Record<keyof typeof METRIC_AGGS, string> = {
  sum: "counter (monotonic sum) or delta up-down sum",
  gauge: "gauge or cumulative up-down (non-monotonic) sum",
  histogram: "histogram",
  exponential_histogram: "exponential_histogram",
  summary: "summary",
};

const AGG_TEXT = (Object.keys(METRIC_AGGS) as (keyof typeof METRIC_AGGS)[])
  .map((family) => `${FAMILY_NAMES[family]}: ${METRIC_AGGS[family].join(", ")} (default ${DEFAULT_AGGS[family]})`)
  .join("; ");

/** A value with its unit (the sender's text, quoted), rounded as the answer's values. */
function valueText(value: number | null, unit: string): string {
  if (value === null) return "none";
  const text = String(roundValue(value));
  return unit === "" || unit === "1" ? text : `${text} ${quoted(unit)}`;
}

/**
 * What the summary says of the first group: where the values add up, its total over the window
 * (the API orders by it) and its newest bucket as what came so far; else its latest value.
 */
function leadingValue(record: MetricSeriesRecord, top: MetricSeriesGroup): string {
  if (addsUp(record)) {
    // The newest bucket's own value: `latest` is the newest bucket's with a value, maybe an older one.
    const open = top.values.at(-1) ?? null;
    return `the largest total ${valueText(totalOf(top.values), record.valueUnit)} over the answer's buckets (its newest, still open: ${open === null ? "nothing yet" : `${valueText(open, "")} so far`})`;
  }
  return top.latest === null
    ? "none with a latest value"
    : `the largest latest ${valueText(top.latest, record.valueUnit)}`;
}

export const queryMetric: McpTool<QueryMetricArgs, QueryMetricAnswer> = {
  name: "query_metric",
  title: "Query a metric",
  description: `One metric's values over the window in step-sized buckets, per group (by service or attributes): each group's latest value, the newest bucket values (older ones dropped first to fit max_bytes, dropped_buckets says how many), counter resets and exemplar trace ids that lead to a trace (get_trace_outline). Counters are never smoothed: rate is the increase per second (the newest bucket, still open, reads the rate now: over the last five whole minutes and the current one). Aggs by type: ${AGG_TEXT}. A gauge's sum adds up every point in a bucket, so it grows with how often the series export: the total of several series now (memory of all processes) is last. Default window 15m, at most 24h.`,
  inputSchema: toolInput(
    {
      name: METRIC_NAME_PROPERTY,
      type: METRIC_TYPE_PROPERTY,
      group_by: {
        type: "array",
        items: { type: "string" },
        description:
          'Grouping keys, in order: service or attr.KEY, e.g. ["service", "attr.gen_ai.token.type"]. Absent: one group',
      },
      agg: { type: "string", enum: [...new Set(Object.values(METRIC_AGGS).flat())], description: AGG_TEXT },
      step: {
        type: "string",
        description:
          "Bucket width as a duration (30s, 1m, 15m); default from the window and how often the series export",
      },
      service: SERVICE_PROPERTY,
      attributes: {
        ...ATTRIBUTES_PROPERTY,
        description:
          "Exact attribute filters, key to value: on the point's value, else the resource's (the value group_by reads)",
      },
      lookback: LOOKBACK_PROPERTY,
      limit: limitProperty("metricSeries", "Groups"),
    },
    ["name"],
  ),
  outputSchema: toolOutput(
    {
      name: { type: "string" },
      type: { type: "string" },
      unit: { type: "string" },
      agg: { type: "string" },
      value_unit: { type: "string", description: "The unit of latest and values (e.g. {token}/s for a rate)" },
      step: { type: "string" },
      step_ms: { type: "integer" },
      from: { type: "string" },
      to: { type: "string" },
      first_bucket: {
        type: ["string", "null"],
        description: "Start of the first value's bucket; each next value is step_ms later",
      },
      dropped_buckets: { type: "integer" },
      groups: {
        type: "array",
        description:
          "The largest latest value first (where the values add up: increase, count, a counter's or histogram's sum, the largest total). Whole numbers exact; other values to 6 significant digits, but with every digit of the whole part and one decimal",
        items: {
          type: "object",
          properties: {
            group: { type: "object", description: "The group's key values; {} when ungrouped" },
            latest: { type: ["number", "null"] },
            total: {
              type: ["number", "null"],
              description:
                "Where the values add up: their sum over every bucket of the answer (dropped buckets too; the first may begin before the window). The newest bucket, still open, holds only what came so far",
            },
            values: { type: "array", items: { type: ["number", "null"] } },
            series: { type: "integer" },
            resets: { type: "integer", description: "Counter resets seen in the window" },
            exemplar_trace_ids: { type: "array", items: { type: "string" } },
          },
          required: ["group", "latest", "values", "series", "resets", "exemplar_trace_ids"],
        },
      },
    },
    [
      "name",
      "type",
      "unit",
      "agg",
      "value_unit",
      "step",
      "step_ms",
      "from",
      "to",
      "first_bucket",
      "dropped_buckets",
      "groups",
    ],
  ),
  async run(args, ctx) {
    const { data: record, meta } = await ctx.api.metricSeries(
      withoutUndefined({
        name: args.name,
        type: args.type,
        groupBy: args.group_by?.length ? args.group_by : undefined,
        agg: args.agg,
        step: args.step,
        service: args.service,
        attr: attributePairs(args.attributes),
        lookback: args.lookback,
        limit: args.limit,
      }),
    );
    const lookback = meta.lookback ?? undefined;
    const exemplar = record.groups.find((group) => group.exemplarTraceIds.length)?.exemplarTraceIds[0];
    // A group_by key no series carries (a typo): every group has none of it.
    const absentKeys = (args.group_by ?? []).filter(
      (key) =>
        key !== "service" && record.groups.length > 0 && record.groups.every((group) => group.group[key] === null),
    );
    const describe: NextCall = {
      tool: "describe_metric",
      arguments: withoutUndefined({ name: record.name, type: args.type, service: args.service, lookback }),
      why: "its attribute keys and values, to group or filter by",
    };
    const next: NextCall[] =
      record.groups.length === 0
        ? // Nothing in the window with these filters: the question again would answer the same.
          [
            {
              tool: "list_services",
              arguments: withoutUndefined({ lookback }),
              why: "the services with telemetry in the window",
            },
            {
              tool: "list_metrics",
              arguments: withoutUndefined({ name: record.name, lookback }),
              why: `where ${label(record.name)} has points`,
            },
          ]
        : [
            ...(absentKeys.length ? [describe] : []),
            ...(exemplar ? [traceOutlineCall(exemplar, `a trace behind ${label(record.name)} (an exemplar)`)] : []),
            ...(args.group_by?.length
              ? []
              : [
                  queryCall(
                    record.name,
                    { ...args, max_bytes: undefined, group_by: ["service"], lookback },
                    "the same per service",
                  ),
                ]),
            ...(absentKeys.length ? [] : [describe]),
          ].slice(0, 3);
    const wider = (cut: { buckets: number; groups: number }): NextCall | undefined => {
      const larger = largerBudgetCall(
        "query_metric",
        { ...args },
        ctx.maxBytes,
        "the buckets and groups cut to fit max_bytes",
      );
      if (larger && (cut.buckets || cut.groups)) return larger;
      if (cut.buckets)
        return {
          tool: "query_metric",
          arguments: { ...args, step: formatDuration(record.stepMs * 2) },
          why: "the whole window in fewer, wider buckets",
        };
      if (meta.truncated && meta.limit < routeLimit("metricSeries").cap)
        return {
          tool: "query_metric",
          arguments: { ...args, limit: routeLimit("metricSeries").cap },
          why: "the groups with smaller values",
        };
      return undefined;
    };
    const usable = usableCalls(next);
    const fitted = fitSeries(record, ctx.maxBytes, (groups, firstBucket, cut) =>
      withoutUndefined({
        name: cutString(record.name),
        type: record.type,
        unit: cutString(record.unit),
        agg: record.agg,
        value_unit: cutString(record.valueUnit),
        step: record.step,
        step_ms: record.stepMs,
        from: record.from,
        to: record.to,
        first_bucket: firstBucket,
        dropped_buckets: cut.buckets,
        groups,
        truncated: meta.truncated || cut.buckets > 0 || cut.groups > 0,
        continuation: wider(cut),
        next: usable,
      }),
    );
    const top = record.groups[0];
    const dropped = [
      fitted.droppedBuckets ? `${fitted.droppedBuckets} oldest buckets` : "",
      fitted.droppedGroups ? `${fitted.droppedGroups} groups` : "",
    ].filter(Boolean);
    const summary = top
      ? `${quoted(record.name)} (${record.agg}, step ${record.step}): ${record.groups.length} groups${meta.truncated ? " (more exist)" : ""}, ${leadingValue(record, top)}${absentKeys.map((key) => `; no series carries ${quoted(key)} (describe_metric lists the keys)`).join("")}${dropped.length ? `; ${dropped.join(" and ")} left out to fit max_bytes` : ""}.`
      : `${quoted(record.name)} has no points in the window ${record.from} .. ${record.to}.`;
    return { structured: fitted.answer, summary };
  },
};

// ---- describe_metric ----

export interface DescribeMetricArgs {
  name: string;
  type?: MetricType;
  service?: string;
  lookback?: string;
  max_bytes?: number;
}

export interface DescribeMetricAnswer extends AnswerTail {
  metric: MetricSummaryRow & { first_time: string; metadata: MetricDetailRecord["metadata"] };
  attributes: MetricDetailRecord["attributes"];
}

export const describeMetric: McpTool<DescribeMetricArgs, DescribeMetricAnswer> = {
  name: "describe_metric",
  title: "Describe a metric",
  description:
    "One metric's identity (type, unit, temporality, description, services, series and point counts, first and last time) and its series' attribute keys, each with its most frequent values and how many series carry them. Use it before query_metric to choose group_by keys and attribute filters. Default window 15m, at most 24h.",
  inputSchema: toolInput(
    { name: METRIC_NAME_PROPERTY, type: METRIC_TYPE_PROPERTY, service: SERVICE_PROPERTY, lookback: LOOKBACK_PROPERTY },
    ["name"],
  ),
  outputSchema: toolOutput(
    {
      metric: {
        type: "object",
        properties: { ...SUMMARY_PROPERTIES, first_time: { type: "string" }, metadata: { type: ["object", "null"] } },
        required: [...SUMMARY_REQUIRED, "first_time"],
      },
      attributes: {
        type: "array",
        description: "Attribute keys, most series first; more: the key has other values",
        items: {
          type: "object",
          properties: {
            key: { type: "string" },
            values: {
              type: "array",
              items: {
                type: "object",
                properties: { value: { type: "string" }, series: { type: "integer" } },
                required: ["value", "series"],
              },
            },
            more: { type: "boolean" },
          },
          required: ["key", "values", "more"],
        },
      },
    },
    ["metric", "attributes"],
  ),
  async run(args, ctx) {
    const { data } = await ctx.api.describeMetric(
      withoutUndefined({ name: args.name, type: args.type, service: args.service, lookback: args.lookback }),
    );
    const { attributes } = data;
    // The metadata map is the sender's, passed through as it came.
    const metric = { ...metricSummary(data), metadata: cutLongStrings(data.metadata), first_time: data.firstTime };
    const window = withoutUndefined({ type: args.type, service: args.service, lookback: args.lookback });
    const firstKey = attributes[0]?.key;
    const next: NextCall[] = usableCalls([
      queryCall(data.name, window, `the values of ${label(data.name)}`),
      ...(firstKey
        ? [
            queryCall(
              data.name,
              { ...window, group_by: [`attr.${firstKey}`] },
              `the values of ${label(data.name)} per ${label(firstKey)}`,
            ),
          ]
        : []),
    ]);
    // The keys matter most (what to group and filter by): where they do not all fit with their
    // values, each keeps fewer values (`more` then says it has others) before keys are left out.
    // Kept whole, one key of long values left out every key after it.
    let fitted: { answer: DescribeMetricAnswer; kept: number; values: number } | undefined;
    const most = Math.max(0, ...attributes.map((attribute) => attribute.values.length));
    for (const values of [most, 5, 1, 0].filter((n, i, all) => i === 0 || n < (all[0] as number))) {
      const keys = attributes.map((attribute) => ({
        ...attribute,
        key: cutString(attribute.key),
        values: attribute.values.slice(0, values).map((item) => ({ ...item, value: cutString(item.value) })),
        more: attribute.more || attribute.values.length > values,
      }));
      const cutValues = keys.some((key, i) => key.values.length < (attributes[i]?.values.length ?? 0));
      const { answer, kept } = fitItems(keys, ctx.maxBytes, (shown, cut) => ({
        metric,
        attributes: [...shown],
        truncated: cut || cutValues,
        ...withoutUndefined({
          continuation:
            cut || cutValues
              ? largerBudgetCall(
                  "describe_metric",
                  { ...args },
                  ctx.maxBytes,
                  "the attribute keys and values cut to fit max_bytes",
                )
              : undefined,
        }),
        next,
      }));
      if (fitted === undefined || kept > fitted.kept) fitted = { answer, kept, values };
      if (kept === attributes.length) break;
    }
    const { answer, kept, values } = fitted as NonNullable<typeof fitted>;
    const shownValues = values < most ? `, at most ${values} values each` : "";
    const services = data.services.slice(0, SUMMARY_SERVICES).map(quoted).join(", ");
    const moreServices =
      data.services.length > SUMMARY_SERVICES ? ` and ${data.services.length - SUMMARY_SERVICES} more` : "";
    const summary = `${quoted(data.name)}: a ${data.type}${data.unit ? ` in ${quoted(data.unit)}` : ""} from ${services ? `${services}${moreServices}` : "no service"}, ${data.seriesCount} series, ${attributes.length} attribute keys${kept < attributes.length || shownValues ? ` (${kept} shown within max_bytes${shownValues})` : ""}.`;
    return { structured: answer, summary };
  },
};

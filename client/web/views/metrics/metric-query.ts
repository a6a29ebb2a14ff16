/**
 * The Metrics view's state in the address bar, under the API's parameter names
 * (`/ui/metrics?name=N&type=T&groupBy=service&agg=rate&step=1m&lookback=1h&service=S&attr.K=V`), and the
 * requests it makes. The list's name filter is `match` (`name` is the selected metric). Pure.
 */

import { aggFamilyOf } from "../../../../shared/metric-routes.js";
import type {
  AttributeFilter,
  DescribeMetricRequest,
  MetricSeriesRequest,
  MetricsRequest,
} from "../../../../shared/query-messages.js";
import { splitGroupBy } from "../../../../shared/query-params.js";
import type { MetricSummaryRecord } from "../../../../shared/query-types.js";
import { uiPath } from "../../../../shared/ui-links.js";
import { DEFAULT_LOOKBACK } from "../../routing/lookback.js";
import { attrFiltersOf, textOf } from "../../routing/query-filters.js";

/** The time range's default, as components/time-range.tsx shows it (the API's own is 15m). */

export interface MetricControls {
  /** The selected metric. */
  name: string | undefined;
  /** Its type, where the name has identities of several. */
  type: string | undefined;
  /** The list's filter: a substring of metric names. */
  match: string | undefined;
  service: string | undefined;
  /** `service` or `attr.KEY`, in order; empty: one group. */
  groupBy: string[];
  /** As the address gives it (the collector refuses one the type does not take, in its words). */
  agg: string | undefined;
  /** Duration text; undefined: the collector's default for the window. */
  step: string | undefined;
  lookback: string;
  attrs: AttributeFilter[];
}

/** `groupBy` repeated or comma-separated, as the API takes it (splitGroupBy); blanks and repeats dropped. */
export function groupByOf(query: URLSearchParams): string[] {
  const keys = query
    .getAll("groupBy")
    .flatMap(splitGroupBy)
    .filter((key) => key !== "");
  return [...new Set(keys)];
}

export function controlsOf(query: URLSearchParams): MetricControls {
  return {
    name: textOf(query, "name"),
    type: textOf(query, "type"),
    match: textOf(query, "match"),
    service: textOf(query, "service"),
    groupBy: groupByOf(query),
    agg: textOf(query, "agg"),
    step: textOf(query, "step"),
    lookback: textOf(query, "lookback") ?? DEFAULT_LOOKBACK,
    attrs: attrFiltersOf(query),
  };
}

export function listRequestOf(controls: MetricControls): MetricsRequest {
  return {
    lookback: controls.lookback,
    ...(controls.service ? { service: controls.service } : {}),
    ...(controls.match ? { name: controls.match } : {}),
  };
}

export function seriesRequestOf(controls: MetricControls, name: string): MetricSeriesRequest {
  return {
    name,
    ...(controls.type ? { type: controls.type } : {}),
    lookback: controls.lookback,
    ...(controls.groupBy.length > 0 ? { groupBy: controls.groupBy } : {}),
    ...(controls.agg ? { agg: controls.agg } : {}),
    ...(controls.step ? { step: controls.step } : {}),
    ...(controls.service ? { service: controls.service } : {}),
    ...(controls.attrs.length > 0 ? { attr: controls.attrs } : {}),
  };
}

export function describeRequestOf(controls: MetricControls, name: string): DescribeMetricRequest {
  return {
    name,
    ...(controls.type ? { type: controls.type } : {}),
    lookback: controls.lookback,
    ...(controls.service ? { service: controls.service } : {}),
  };
}

/**
 * The view with another metric selected: the window, service, step and list filter stay; the
 * aggregation (another type takes others), the attribute filters and the attribute group keys
 * (another metric has other attributes) go; grouping by service stays.
 */
export function selectMetricHref(query: URLSearchParams, name: string, type?: string): string {
  const next: Record<string, string | string[]> = {};
  for (const [key, value] of query) {
    if (key === "name" || key === "type" || key === "agg" || key === "groupBy" || key.startsWith("attr.")) continue;
    next[key] = value;
  }
  const groupBy = groupByOf(query).filter((key) => key === "service");
  return uiPath("metrics", {
    name,
    ...(type !== undefined ? { type } : {}),
    ...next,
    ...(groupBy.length > 0 ? { groupBy } : {}),
  });
}

type Identity = Pick<MetricSummaryRecord, "name" | "type" | "unit" | "temporality" | "monotonic">;

/**
 * Whether the collector reads two identities of a name as one: of one type, unit and
 * monotonicity, taking the same aggregations, in either temporality (a cumulative counter in one
 * service and a delta one in another; docs/api.md).
 */
const readTogether = (a: Identity, b: Identity) =>
  a.name === b.name &&
  a.type === b.type &&
  a.unit === b.unit &&
  a.monotonic === b.monotonic &&
  aggFamilyOf(a) === aggFamilyOf(b);

/**
 * The type that makes the collector answer with this row's identity, where the list holds
 * another of its name with another type (a gauge in one service, a counter in another): by name
 * alone it answers with the one written to most recently. Undefined otherwise (identities of one
 * type that differ in unit or temporality are told apart by the service filter only).
 */
export function typeChoosing(metric: MetricSummaryRecord, listed: readonly MetricSummaryRecord[]): string | undefined {
  return listed.some((other) => other.name === metric.name && other.type !== metric.type) ? metric.type : undefined;
}

/**
 * Whether a listed row is the metric charted: by name, and where the list holds several
 * identities of the name, by the identity the collector answered with and those it reads with it
 * (readTogether; none until it has answered).
 */
export function isCharted(
  metric: MetricSummaryRecord,
  listed: readonly MetricSummaryRecord[],
  name: string | undefined,
  answered: Identity | undefined,
): boolean {
  if (metric.name !== name) return false;
  if (listed.filter((other) => other.name === name).length === 1) return true;
  return answered !== undefined && readTogether(metric, answered);
}

/** Adds the group key when absent, removes it when present; the order of the others is kept. */
export function toggleGroupBy(groupBy: readonly string[], key: string): string[] {
  return groupBy.includes(key) ? groupBy.filter((k) => k !== key) : [...groupBy, key];
}

/** The view with no metric selected (the list alone), keeping the window and the list's filters. */
export function listOnlyHref(query: URLSearchParams): string {
  const next: Record<string, string> = {};
  for (const [key, value] of query) if (key === "lookback" || key === "service" || key === "match") next[key] = value;
  return uiPath("metrics", next);
}

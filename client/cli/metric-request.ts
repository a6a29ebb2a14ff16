/**
 * The requests of `obs metric NAME`, from its parsed flags, checked before any request: bad
 * values end the command with exit 2 (invalid_argument), as the other query commands do. Pure.
 */
import type { DescribeMetricRequest, MetricSeriesRequest } from "../../shared/query-messages.js";
import { splitGroupBy } from "../../shared/query-params.js";
import { ArgumentError } from "../lifecycle/lifecycle-error.js";
import type { Flags } from "./query-command.js";
import { attributeRequest, checkLimit, since } from "./query-support.js";
import { flagRequest } from "./route-flags.js";

/** A metric's series group by service or by one point (or resource) attribute. */
const GROUP_BY = /^(service|attr\..+)$/;

function metricName(flags: Flags): string {
  const name = String(flags.name ?? "");
  if (name === "") throw new ArgumentError("name a metric: obs metric NAME (obs metrics lists them)");
  return name;
}

/** The `--group-by` values, each `service` or `attr.KEY` (or several, comma-separated, as the API takes them), in the order given. */
export function groupByValues(value: unknown): string[] {
  const values = (Array.isArray(value) ? value : value === undefined ? [] : [value]).map(String).flatMap(splitGroupBy);
  for (const item of values) {
    if (!GROUP_BY.test(item)) throw new ArgumentError(`--group-by "${item}": use service or attr.KEY`);
  }
  return values;
}

/** The series request: the name, the exact attribute filters, and the route's flags. */
export function metricSeriesRequest(flags: Flags): MetricSeriesRequest {
  const name = metricName(flags);
  const lookback = since(String(flags.since));
  checkLimit(flags);
  const groupBy = groupByValues(flags.groupBy);
  const filters = attributeRequest(flags.filters);
  if (filters.attrContains) {
    throw new ArgumentError("obs metric takes exact filters only: attr.KEY=VALUE");
  }
  const request: MetricSeriesRequest = { ...filters, ...flagRequest("metricSeries", flags), name, lookback };
  if (groupBy.length) request.groupBy = groupBy;
  else delete request.groupBy;
  return request;
}

/** The flags `--describe` has no use for; given with it, they are refused rather than ignored. */
const SERIES_ONLY = [
  ["groupBy", "--group-by"],
  ["agg", "--agg"],
  ["step", "--step"],
  ["limit", "--limit"],
] as const;

/** The describe request: the name, --type, --service and --since; series-only flags and filters refused. */
export function describeMetricRequest(flags: Flags): DescribeMetricRequest {
  const name = metricName(flags);
  const lookback = since(String(flags.since));
  const given: string[] = SERIES_ONLY.filter(([key]) => flags[key] !== undefined).map(([, flag]) => flag);
  if (Array.isArray(flags.filters) && flags.filters.length) given.push("attr.KEY=VALUE");
  if (given.length) {
    throw new ArgumentError(`--describe takes only --type, --service and --since, not ${given.join(", ")}`);
  }
  return {
    name,
    lookback,
    ...(flags.type === undefined ? {} : { type: String(flags.type) }),
    ...(flags.service === undefined ? {} : { service: String(flags.service) }),
  };
}

/**
 * The sentence that names the chart for a screen reader (its canvas's aria-label):
 * "http.server.requests, rate per second by service, 3 series, last 1h, in {request}/s". Pure.
 */
import type { MetricSeriesRecord } from "../../../../shared/query-types.js";
import { aggPhrase } from "./metric-kinds.js";

export function groupByPhrase(groupBy: readonly string[]): string {
  return groupBy.map((key) => (key.startsWith("attr.") ? key.slice("attr.".length) : key)).join(" and ");
}

export function chartSummary(record: MetricSeriesRecord, groupBy: readonly string[], lookback: string): string {
  const by = groupBy.length > 0 ? ` by ${groupByPhrase(groupBy)}` : "";
  const count = record.groups.length;
  const unit = record.valueUnit ? `, in ${record.valueUnit}` : "";
  return `${record.name}, ${aggPhrase(record.agg, record.step)}${by}, ${count} series, last ${lookback}${unit}`;
}

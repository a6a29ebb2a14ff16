/**
 * The exemplars of a series answer as a list under the chart: the answer carries each group's
 * exemplar trace ids, newest first, without their times, so they cannot be placed on the time
 * axis; each becomes a row with its group, and a trace seen in several groups is listed once,
 * under the first (the answer orders groups by their latest value). Pure.
 */
import type { MetricSeriesRecord } from "../../../../shared/query-types.js";
import { groupColour, groupLabel } from "./series-data.js";

export interface ExemplarRow {
  traceId: string;
  groupLabel: string;
  colour: string;
  /** 1 for the group's newest exemplar. */
  rank: number;
}

export function exemplarRows(record: MetricSeriesRecord): ExemplarRow[] {
  const seen = new Set<string>();
  const rows: ExemplarRow[] = [];
  for (const group of record.groups) {
    let rank = 0;
    for (const traceId of group.exemplarTraceIds) {
      rank++;
      if (seen.has(traceId)) continue;
      seen.add(traceId);
      rows.push({ traceId, groupLabel: groupLabel(group.group, record.name), colour: groupColour(group.group), rank });
    }
  }
  return rows;
}

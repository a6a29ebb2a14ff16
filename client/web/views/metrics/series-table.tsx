import type { MetricSeriesRecord } from "../../../../shared/query-types.js";
import { formatDateTime, isoToMs } from "../../format/time.js";
import { firstFilledBucket, formatValue, type PlotData } from "./series-data.js";

/**
 * The chart's numbers as a table: a row per bucket, a column per group (for screen readers and
 * copying), from the first bucket with a value; the newest bucket, when it is still filling with
 * values that add up, says its values are what came so far (the chart leaves it out).
 */
export function SeriesTable({ record, data }: { record: MetricSeriesRecord; data: PlotData }) {
  const first = firstFilledBucket(data.ys, record.buckets.length);
  return (
    <div class="series-table-box">
      {first > 0 && (
        <p class="muted table-note">
          {first} earlier bucket{first === 1 ? "" : "s"} of the window without a value left out.
        </p>
      )}
      <table class="data series-table" aria-label={`${record.name} values per ${record.step} bucket`}>
        <thead>
          <tr>
            <th scope="col">Bucket start</th>
            {data.series.map((series) => (
              <th key={series.label} scope="col" class="num">
                {series.label}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {record.buckets.slice(first).map((bucket, at) => {
            const row = first + at;
            return (
              <tr key={bucket} data-bucket={bucket}>
                <th scope="row" class="mono">
                  {formatDateTime(isoToMs(bucket))}
                  {data.openLast && row === record.buckets.length - 1 && (
                    <span class="muted open-bucket"> (open: so far)</span>
                  )}
                </th>
                {data.ys.map((values, column) => (
                  <td key={data.series[column]?.label ?? column} class="num">
                    {formatValue(values[row] ?? null)}
                  </td>
                ))}
              </tr>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}

import type { MetricSeriesRecord } from "../../../../shared/query-types.js";
import { formatDateTime } from "../../format/time.js";
import { formatValue, isoToMs, type PlotData } from "./series-data.js";

/** The chart's numbers as a table: a row per bucket, a column per group (for screen readers and copying). */
export function SeriesTable({ record, data }: { record: MetricSeriesRecord; data: PlotData }) {
  return (
    <div class="series-table-box">
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
          {record.buckets.map((bucket, row) => (
            <tr key={bucket} data-bucket={bucket}>
              <th scope="row" class="mono">
                {formatDateTime(isoToMs(bucket))}
              </th>
              {data.ys.map((values, column) => (
                <td key={data.series[column]?.label ?? column} class="num">
                  {formatValue(values[row] ?? null)}
                </td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

/** The detail of a row of repeated spans: what they share, how many, and their combined time. */
import { formatDuration } from "../../format/time.js";
import type { WaterfallSpan } from "./trace-spans.js";
import type { WaterfallRow } from "./waterfall-rows.js";

export function GroupDetail({ row, spans }: { row: WaterfallRow; spans: readonly WaterfallSpan[] }) {
  const summary = row.group?.summary;
  const first = spans[row.index];
  if (!summary || !first) return null;
  return (
    <aside class="span-detail" aria-label="Repeated spans">
      <h2>
        <bdi>{first.name}</bdi> ×{summary.count}
      </h2>
      <p class="muted">
        {summary.count} consecutive sibling spans of <bdi>{first.service}</bdi> with this name and no children, shown as
        one row. Open it (→ or Enter) to see each.
      </p>
      <table class="data kv" aria-label="Repeated spans">
        <tbody>
          <tr>
            <th scope="row">service</th>
            <td>
              <bdi>{first.service}</bdi>
            </td>
          </tr>
          <tr>
            <th scope="row">spans</th>
            <td class="mono">{summary.count}</td>
          </tr>
          <tr>
            <th scope="row">total</th>
            <td class="mono">{formatDuration(summary.totalMs)}</td>
          </tr>
          <tr>
            <th scope="row">average</th>
            <td class="mono">{formatDuration(summary.avgMs)}</td>
          </tr>
          <tr>
            <th scope="row">extent</th>
            <td class="mono">
              +{formatDuration(summary.startMs)} to +{formatDuration(summary.endMs)} (
              {formatDuration(summary.endMs - summary.startMs)})
            </td>
          </tr>
          <tr>
            <th scope="row">errors</th>
            <td class={summary.errors > 0 ? "status-error" : ""}>{summary.errors}</td>
          </tr>
        </tbody>
      </table>
    </aside>
  );
}

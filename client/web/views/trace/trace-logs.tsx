/** The trace's correlated logs under the waterfall: offset, severity, service, body; a click selects the log's span. */
import { formatDuration } from "../../format/time.js";
import type { TraceLogLine } from "./trace-log-lines.js";

export function TraceLogs({
  lines,
  truncated,
  onSelect,
}: {
  lines: readonly TraceLogLine[];
  truncated: boolean;
  onSelect: (spanId: string) => void;
}) {
  return (
    <section class="trace-logs" aria-label="Logs of the trace">
      <h2>
        Logs ({lines.length}
        {truncated ? "+" : ""})
      </h2>
      {truncated && <div class="cap-notice">Showing the first {lines.length} logs of this trace.</div>}
      {lines.length === 0 ? (
        <p class="muted">No logs carry this trace's id (logs correlate through their trace and span ids).</p>
      ) : (
        <table class="data">
          <thead>
            <tr>
              <th class="num">offset</th>
              <th>severity</th>
              <th>service</th>
              <th>body</th>
            </tr>
          </thead>
          <tbody>
            {lines.map((line) => (
              <tr key={line.logId} class={line.spanId ? "clickable" : ""}>
                <td class="num mono">+{formatDuration(line.offsetMs)}</td>
                <td class={`sev sev-${line.level}`}>{line.severity}</td>
                <td>{line.service}</td>
                <td class="log-body">
                  {line.spanId ? (
                    <button type="button" class="link-button" onClick={() => onSelect(line.spanId as string)}>
                      {line.body}
                    </button>
                  ) : (
                    line.body
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}

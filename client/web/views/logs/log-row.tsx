import type { LogRecord } from "../../../../shared/api-records.js";
import { tracePath } from "../../../../shared/ui-links.js";
import { serviceColour } from "../../format/service-colour.js";
import { severityClass, severityLabel } from "../../format/severity.js";
import { formatClock, formatDateTime } from "../../format/time.js";
import { Link } from "../../routing/link.js";
import { LogBody } from "./log-body-view.js";
import { LogDetails } from "./log-details.js";

export const LOG_COLUMNS = 6;

/** An id's last 8 digits: they tell rows apart as well as the first (ids are random), and sequential test ids too. */
function shortId(id: string): string {
  return id.length > 8 ? `…${id.slice(-8)}` : id;
}

interface LogRowProps {
  log: LogRecord;
  expanded: boolean;
  fresh: boolean;
  lookback: string;
  onToggle: () => void;
}

/** One log: time, severity, service, body and its trace; expands below to its details. */
export function LogRow({ log, expanded, fresh, lookback, onToggle }: LogRowProps) {
  const ms = Date.parse(log.timestamp);
  const label = severityLabel(log.severityNumber, log.severityText);
  return (
    <>
      <tr class={`log-row${fresh ? " fresh" : ""}${expanded ? " expanded" : ""}`} data-log-id={log.logId}>
        <td class="log-toggle">
          <button
            type="button"
            class="expander"
            aria-expanded={expanded}
            aria-label={`${expanded ? "Hide" : "Show"} details of the ${label} log at ${formatClock(ms)}`}
            onClick={onToggle}
          >
            {expanded ? "▾" : "▸"}
          </button>
        </td>
        <td class="log-time num" title={`${formatDateTime(ms)} (${log.timestamp})`}>
          {formatClock(ms)}
        </td>
        <td class="log-severity" title={label}>
          <span class={severityClass(log.severityNumber, log.severityText)}>{label}</span>
        </td>
        <td class="log-service">
          <span class="service-dot" style={{ background: serviceColour(log.serviceName) }} aria-hidden="true" />
          <bdi>{log.serviceName}</bdi>
        </td>
        <td class="log-message">
          <LogBody body={log.body} />
        </td>
        <td class="log-trace">
          {log.traceId ? (
            <Link
              class="mono"
              href={tracePath(log.traceId, log.spanId ?? undefined)}
              title={`Trace ${log.traceId}${log.spanId ? `, span ${log.spanId}` : ""}`}
              aria-label={`Open trace ${log.traceId}${log.spanId ? ` at span ${log.spanId}` : ""}`}
            >
              {shortId(log.traceId)}
            </Link>
          ) : (
            <span class="muted">–</span>
          )}
        </td>
      </tr>
      {expanded && (
        <tr class="log-details-row">
          <td colSpan={LOG_COLUMNS}>
            <LogDetails log={log} lookback={lookback} />
          </td>
        </tr>
      )}
    </>
  );
}

/** The trace's summary above the waterfall: root, duration, spans, services, errors, start. */
import type { TraceSummary } from "../../../../shared/api-records.js";
import { uiPath } from "../../../../shared/ui-links.js";
import { serviceColour } from "../../format/service-colour.js";
import { formatDateTime, formatDuration } from "../../format/time.js";
import { Link } from "../../routing/link.js";

export function TraceHeader({ summary }: { summary: TraceSummary }) {
  const title = summary.rootOperation ? (
    <>
      <bdi>{summary.rootServiceName ?? "?"}</bdi>: <bdi>{summary.rootOperation}</bdi>
    </>
  ) : (
    `Trace ${summary.traceId}`
  );
  return (
    <div class="trace-header">
      <div class="trace-title">
        <Link href={uiPath("traces")} class="back-link">
          ← Traces
        </Link>
        <h1>{title}</h1>
      </div>
      <dl class="trace-facts">
        <div>
          <dt>Duration</dt>
          <dd>{formatDuration(summary.durationMs)}</dd>
        </div>
        <div>
          <dt>Spans</dt>
          <dd>{summary.spanCount.toLocaleString("en-US")}</dd>
        </div>
        <div>
          <dt>Errors</dt>
          <dd class={summary.errorCount > 0 ? "status-error" : ""}>
            {summary.errorCount > 0 ? `⚠ ${summary.errorCount}` : "0"}
          </dd>
        </div>
        <div>
          <dt>Started</dt>
          <dd>{formatDateTime(Date.parse(summary.startTime))}</dd>
        </div>
        <div>
          <dt>Services</dt>
          <dd class="trace-services">
            {summary.services.map((service) => (
              <span key={service} class="service-chip">
                <span class="wf-swatch" style={{ backgroundColor: serviceColour(service) }} />
                <bdi>{service}</bdi>
              </span>
            ))}
          </dd>
        </div>
        <div>
          <dt>Trace id</dt>
          <dd class="mono">{summary.traceId}</dd>
        </div>
      </dl>
    </div>
  );
}

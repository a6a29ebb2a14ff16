/**
 * The audit of `/api/audit`: the current window against the baseline before it, findings by
 * severity with their figures, evidence linked to traces, spans and logs, and follow-up
 * commands to copy. Not live: an audit compares whole windows, so it is run on load, on a
 * change of its parameters (all in the query string) and on "Run again".
 */
import type { AuditReportRecord } from "../../../../shared/query-types.js";
import { apiHref, query } from "../../api/query.js";
import { ErrorBox } from "../../components/error-box.js";
import { ViewHeader } from "../../components/view-header.js";
import { formatClock, formatDateTime } from "../../format/time.js";
import { useQuery } from "../../live/use-query.js";
import type { Route } from "../../routing/router.js";
import { AuditControls } from "./audit-controls.js";
import { groupFindings } from "./audit-findings.js";
import { auditRequestOf, logsLookbackFor } from "./audit-request.js";
import { FindingCard } from "./finding-card.js";
import "./audit.css";

const GROUP_TITLES: Record<string, string> = { error: "Errors", warning: "Warnings", info: "Info" };

function WindowSummary({ report }: { report: AuditReportRecord }) {
  const { window } = report;
  const span = (start: string, end: string) => (
    <span title={`${start} – ${end}`}>
      {formatDateTime(Date.parse(start))} – {formatClock(Date.parse(end))}
    </span>
  );
  return (
    <p class="audit-window">
      Current window {span(window.currentStart, window.currentEnd)} ({window.current}), against the baseline{" "}
      {span(window.baselineStart, window.baselineEnd)} ({window.baseline})
      {report.parameters.service ? `, service ${report.parameters.service}` : ""}
      {report.parameters.durationMin !== null ? `, slow at ${report.parameters.durationMin} ms or more` : ""}.
    </p>
  );
}

export function AuditView({ route }: { route: Route }) {
  const request = auditRequestOf(route.query);
  const audit = useQuery(apiHref("audit", request), (signal) => query("audit", request, signal));
  const report = audit.data?.data;
  const groups = report ? groupFindings(report.findings) : [];
  const logsLookback = report ? logsLookbackFor(Date.parse(report.window.currentStart), Date.now()) : "1h";

  return (
    <section class="view audit-view" aria-label="Audit">
      <ViewHeader title="Audit">
        <button type="button" onClick={audit.reload} disabled={audit.loading}>
          {audit.loading ? "Running…" : "Run again"}
        </button>
      </ViewHeader>
      <AuditControls params={route.query} />
      <ErrorBox error={audit.error} />
      {!report ? (
        !audit.error && (
          <p class="muted" aria-busy="true">
            Running the audit…
          </p>
        )
      ) : (
        <>
          <WindowSummary report={report} />
          <p class="audit-counts">
            <span class="count-error">{report.counts.error} errors</span>
            <span class="count-warning">{report.counts.warning} warnings</span>
            <span class="count-info">{report.counts.info} info</span>
          </p>
          {report.truncated.length > 0 && (
            <div class="cap-notice" role="status">
              Capped: {report.truncated.join("; ")}
            </div>
          )}
          {groups.length === 0 ? (
            <p class="empty-state">
              No findings: nothing in the current window differs from the baseline by the audit's rules.
            </p>
          ) : (
            groups.map((group) => (
              <section
                key={group.severity}
                class={`finding-group group-${group.severity}`}
                aria-labelledby={`findings-${group.severity}`}
              >
                <h2 id={`findings-${group.severity}`}>
                  {GROUP_TITLES[group.severity] ?? group.severity} <span class="muted">({group.findings.length})</span>
                </h2>
                {group.findings.map((finding, index) => (
                  <FindingCard key={`${finding.code}-${index}`} finding={finding} logsLookback={logsLookback} />
                ))}
              </section>
            ))
          )}
        </>
      )}
    </section>
  );
}

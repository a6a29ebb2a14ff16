import { useState } from "preact/hooks";
import { tracePath, uiPath } from "../../../../shared/ui-links.js";
import { apiHref, query } from "../../api/query.js";
import { Link } from "../../routing/link.js";
import { isPlainClick } from "../../routing/plain-click.js";
import { navigate } from "../../routing/router.js";
import type { Finding } from "./audit-findings.js";

/**
 * A span id whose trace the finding does not name: its link is the span's JSON, and a plain
 * click asks `getSpan` for its trace and opens the waterfall at it.
 */
function SpanLink({ spanId }: { spanId: string }) {
  const [error, setError] = useState<string | undefined>(undefined);
  const href = apiHref("getSpan", { spanId });
  return (
    <>
      <a
        class="mono"
        href={href}
        title="Open this span in its trace"
        onClick={(event) => {
          if (!isPlainClick(event)) return;
          event.preventDefault();
          query("getSpan", { spanId })
            .then((answer) => navigate(tracePath(answer.data.traceId, spanId)))
            .catch((failure: Error) => setError(failure.message));
        }}
      >
        {spanId}
      </a>
      {error && <span class="status-error"> {error}</span>}
    </>
  );
}

/** A finding's evidence: traces and spans linked to the waterfall, logs by id with their traces' logs, notes as text. */
export function FindingEvidence({ finding, logsLookback }: { finding: Finding; logsLookback: string }) {
  const { traceIds, spanIds, logIds, notes } = finding.evidence;
  if (traceIds.length + spanIds.length + logIds.length + notes.length === 0) return null;
  return (
    <dl class="evidence">
      {traceIds.length > 0 && (
        <>
          <dt>Traces</dt>
          <dd>
            <ul class="id-list">
              {traceIds.map((traceId) => (
                <li key={traceId}>
                  <Link class="mono" href={tracePath(traceId)}>
                    {traceId}
                  </Link>
                  {logIds.length > 0 && (
                    <>
                      {" "}
                      <Link class="muted" href={uiPath("logs", { traceId, lookback: logsLookback })}>
                        logs
                      </Link>
                    </>
                  )}
                </li>
              ))}
            </ul>
          </dd>
        </>
      )}
      {spanIds.length > 0 && (
        <>
          <dt>Spans</dt>
          <dd>
            <ul class="id-list">
              {spanIds.map((spanId) => (
                <li key={spanId}>
                  <SpanLink spanId={spanId} />
                </li>
              ))}
            </ul>
          </dd>
        </>
      )}
      {logIds.length > 0 && (
        <>
          <dt>Logs</dt>
          <dd>
            <ul class="id-list">
              {logIds.map((logId) => (
                <li key={logId} class="mono">
                  {logId}
                </li>
              ))}
            </ul>
            {traceIds.length === 0 && finding.service && (
              <Link href={uiPath("logs", { service: finding.service, severity: "warn", lookback: logsLookback })}>
                the service's warnings
              </Link>
            )}
          </dd>
        </>
      )}
      {notes.length > 0 && (
        <>
          <dt>Notes</dt>
          <dd>
            <ul class="notes">
              {notes.map((note) => (
                <li key={note}>{note}</li>
              ))}
            </ul>
          </dd>
        </>
      )}
    </dl>
  );
}

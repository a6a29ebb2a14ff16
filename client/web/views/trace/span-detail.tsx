/**
 * The selected span in full, fetched with `getSpan` when selected (the waterfall holds no
 * attributes): name, service, kind, status, times, ids with links, attributes, events with
 * their exception stacks, links to other traces, resource and scope. All of it text. A span id
 * that belongs to another trace (getSpan finds spans by id alone) is named, not shown.
 */

import type { Attributes } from "../../../../shared/api-records.js";
import { tracePath } from "../../../../shared/ui-links.js";
import { query } from "../../api/query.js";
import { BreakableText } from "../../components/breakable-text.js";
import { ErrorBox } from "../../components/error-box.js";
import { serviceColour } from "../../format/service-colour.js";
import { formatDateTime, formatDuration, nanosToMs } from "../../format/time.js";
import { useQuery } from "../../live/use-query.js";
import { Link } from "../../routing/link.js";
import { attributeRows, isBlockAttribute } from "./detail-fields.js";
import { spanAnswer } from "./span-answer.js";
import { offsetMsOf } from "./trace-spans.js";

function AttributeTable({ attributes, label }: { attributes: Attributes; label: string }) {
  const rows = attributeRows(attributes);
  if (rows.length === 0) return <p class="muted">none</p>;
  return (
    <table class="data kv" aria-label={label}>
      <tbody>
        {rows.map(([key, value]) => (
          <tr key={key}>
            <th scope="row">
              <BreakableText text={key} />
            </th>
            <td>
              {isBlockAttribute(key, value) ? (
                <pre>
                  <bdi>{value}</bdi>
                </pre>
              ) : (
                <bdi class="mono">{value}</bdi>
              )}
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

export function SpanDetail({
  traceId,
  spanId,
  heldHere,
  origin,
  onSelect,
}: {
  traceId: string;
  spanId: string;
  /** This trace's waterfall has a span with this id. */
  heldHere: boolean;
  origin: string;
  onSelect: (id: string) => void;
}) {
  const state = useQuery(`span:${spanId}`, (signal) => query("getSpan", { spanId }, signal));
  const answer = spanAnswer(state.data?.data, spanId, traceId, heldHere);
  if (answer.kind === "otherTrace") {
    const other = (
      <Link href={tracePath(answer.traceId, spanId)}>
        <span class="mono">{answer.traceId}</span>
      </Link>
    );
    return (
      <aside class="span-detail" aria-label="Span detail">
        <div class="cap-notice" role="status">
          {answer.heldHere ? (
            <>
              Trace {other} has a span with ID <span class="mono">{spanId}</span> too, and the collector finds spans by
              ID alone: it answered that one, so this span's attributes cannot be shown here. Its row is in the
              waterfall.
            </>
          ) : (
            <>
              Span ID <span class="mono">{spanId}</span> belongs to trace {other}, not to this one.
            </>
          )}
        </div>
      </aside>
    );
  }
  if (answer.kind === "loading") {
    return (
      <aside class="span-detail" aria-label="Span detail">
        {state.error ? <ErrorBox error={state.error} /> : <p class="muted">Loading span {spanId}…</p>}
      </aside>
    );
  }
  const span = answer.span;
  const error = span.status.code === "error";
  return (
    <aside class="span-detail" aria-label="Span detail">
      <h2>
        <span class="wf-swatch" style={{ backgroundColor: serviceColour(span.serviceName) }} />{" "}
        <bdi>{span.operation}</bdi>
      </h2>
      <table class="data kv" aria-label="Span">
        <tbody>
          <tr>
            <th scope="row">service</th>
            <td>
              <bdi>{span.serviceName}</bdi>
            </td>
          </tr>
          <tr>
            <th scope="row">kind</th>
            <td>{span.kind}</td>
          </tr>
          <tr>
            <th scope="row">status</th>
            <td class={error ? "status-error" : ""}>
              {error ? "⚠ error" : span.status.code}
              {span.status.message ? `: ${span.status.message}` : ""}
            </td>
          </tr>
          <tr>
            <th scope="row">start</th>
            <td class="mono">
              {formatDateTime(nanosToMs(span.startTimeUnixNano))} (+
              {formatDuration(offsetMsOf(span.startTimeUnixNano, origin))})
            </td>
          </tr>
          <tr>
            <th scope="row">duration</th>
            <td class="mono">{formatDuration(span.durationNs / 1e6)}</td>
          </tr>
          <tr>
            <th scope="row">span id</th>
            <td class="mono">{span.spanId}</td>
          </tr>
          <tr>
            <th scope="row">parent</th>
            <td class="mono">
              {span.parentSpanId === null ? (
                "none (root)"
              ) : span.missingParent ? (
                `${span.parentSpanId} (not in the store)`
              ) : (
                <Link
                  href={tracePath(span.traceId, span.parentSpanId)}
                  onClick={(event) => {
                    event.preventDefault();
                    onSelect(span.parentSpanId as string);
                  }}
                >
                  {span.parentSpanId}
                </Link>
              )}
            </td>
          </tr>
        </tbody>
      </table>
      <h3>Attributes</h3>
      <AttributeTable attributes={span.attributes} label="Attributes" />
      <h3>Events ({span.events.length})</h3>
      {span.events.length === 0 ? (
        <p class="muted">none</p>
      ) : (
        <ol class="span-events">
          {span.events.map((event) => (
            <li key={`${event.timeUnixNano}-${event.name}`}>
              <div>
                <span class="mono">+{formatDuration(offsetMsOf(event.timeUnixNano, origin))}</span>{" "}
                <strong class={event.name === "exception" ? "status-error" : ""}>
                  <bdi>{event.name}</bdi>
                </strong>
              </div>
              <AttributeTable attributes={event.attributes} label={`Event ${event.name}`} />
            </li>
          ))}
        </ol>
      )}
      {span.links.length > 0 && (
        <>
          <h3>Links ({span.links.length})</h3>
          <ul class="span-links">
            {span.links.map((link) => (
              <li key={`${link.traceId}-${link.spanId}`} class="mono">
                {link.traceId ? (
                  <Link href={tracePath(link.traceId, link.spanId ?? undefined)}>
                    {link.traceId}
                    {link.spanId ? ` / ${link.spanId}` : ""}
                  </Link>
                ) : (
                  "a link without a trace id"
                )}
              </li>
            ))}
          </ul>
        </>
      )}
      <h3>Resource</h3>
      <AttributeTable attributes={span.resource.attributes} label="Resource" />
      <h3>Scope</h3>
      <p class="mono">
        <bdi>{span.scope.name || "(unnamed)"}</bdi>
        {span.scope.version ? ` ${span.scope.version}` : ""}
      </p>
    </aside>
  );
}

import type { Attributes, LogRecord } from "../../../../shared/api-records.js";
import { tracePath, uiPath } from "../../../../shared/ui-links.js";
import { valueText } from "../../format/log-body.js";
import { Link } from "../../routing/link.js";

function AttributeTable({ label, attributes }: { label: string; attributes: Attributes }) {
  const entries = Object.entries(attributes);
  if (entries.length === 0) return <p class="muted">No {label.toLowerCase()}.</p>;
  return (
    <table class="kv" aria-label={label}>
      <tbody>
        {entries.map(([key, value]) => (
          <tr key={key}>
            <th scope="row">
              <bdi>{key}</bdi>
            </th>
            <td>
              <bdi>{valueText(value)}</bdi>
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/** A log's expansion: its attributes, resource and scope, and the record's ids and times. */
export function LogDetails({ log, lookback }: { log: LogRecord; lookback: string }) {
  const record: [string, string | null][] = [
    ["log id", log.logId],
    ["timestamp", log.timestamp],
    ["observed", log.observedTime],
    ["severity number", String(log.severityNumber)],
    ["event name", log.eventName],
    ["flags", log.flags ? String(log.flags) : null],
    ["dropped attributes", log.droppedAttributesCount ? String(log.droppedAttributesCount) : null],
  ];
  return (
    <div class="log-details">
      <section>
        <h3>Attributes</h3>
        <AttributeTable label="Attributes" attributes={log.attributes} />
      </section>
      <section>
        <h3>Resource</h3>
        <AttributeTable label="Resource attributes" attributes={log.resource.attributes} />
        {log.resource.schemaUrl && (
          <p class="muted">
            schema <bdi>{log.resource.schemaUrl}</bdi>
          </p>
        )}
      </section>
      <section>
        <h3>Scope</h3>
        <p class="mono">
          {log.scope.name ? <bdi>{log.scope.name}</bdi> : <span class="muted">(unnamed)</span>}
          {log.scope.version ? ` ${log.scope.version}` : ""}
        </p>
        {Object.keys(log.scope.attributes).length > 0 && (
          <AttributeTable label="Scope attributes" attributes={log.scope.attributes} />
        )}
      </section>
      <section class="log-record">
        <h3>Record</h3>
        <table class="kv" aria-label="Record">
          <tbody>
            {record
              .filter((entry): entry is [string, string] => entry[1] !== null)
              .map(([key, value]) => (
                <tr key={key}>
                  <th scope="row">{key}</th>
                  <td class="mono">
                    <bdi>{value}</bdi>
                  </td>
                </tr>
              ))}
            {log.traceId && (
              <tr>
                <th scope="row">trace</th>
                <td class="mono">
                  <Link href={tracePath(log.traceId, log.spanId ?? undefined)}>{log.traceId}</Link>{" "}
                  <Link href={uiPath("logs", { traceId: log.traceId, lookback })}>its logs</Link>
                </td>
              </tr>
            )}
            {log.spanId && (
              <tr>
                <th scope="row">span</th>
                <td class="mono">{log.spanId}</td>
              </tr>
            )}
          </tbody>
        </table>
      </section>
    </div>
  );
}

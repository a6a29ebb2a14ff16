import { useState } from "preact/hooks";
import { query } from "../../api/query.js";
import { ServiceSelect } from "../../components/service-select.js";
import { SEVERITY_LEVELS } from "../../format/severity.js";
import { useQuery } from "../../live/use-query.js";
import { lookbackOf } from "../../routing/lookback.js";
import { textOf } from "../../routing/query-filters.js";
import { setQuery } from "../../routing/router.js";
import { attrChange, containsChange, containsOf, filterChips } from "./log-filters.js";

function inputValue(event: Event): string {
  return (event.currentTarget as HTMLInputElement | HTMLSelectElement).value;
}

/** The choices of a select, with the URL's own value first when it is not one of them. */
function withCurrent(current: string, choices: readonly string[]): string[] {
  return current && !choices.includes(current) ? [current, ...choices] : [...choices];
}

/**
 * The log search's filters. Each lives in the query string under the route's name: a choice
 * from a list pushes a history entry; typed text is applied on Enter or leaving the box, and
 * replaces the entry.
 */
export function LogFilterForm({ params }: { params: URLSearchParams }) {
  const lookback = lookbackOf(params);
  const services = useQuery(`services:${lookback}`, (signal) => query("listServices", { lookback }, signal));
  const [attrText, setAttrText] = useState("");
  const [attrError, setAttrError] = useState(false);
  const service = textOf(params, "service") ?? "";
  const severity = textOf(params, "severity") ?? "";
  const serviceNames = (services.data?.data ?? []).map((s) => s.name).sort();

  const addAttr = () => {
    const change = attrChange(attrText);
    setAttrError(change === null && attrText.trim() !== "");
    if (!change) return;
    setQuery(change);
    setAttrText("");
  };

  return (
    <form class="filters log-filters" aria-label="Log filters" onSubmit={(event) => event.preventDefault()}>
      <ServiceSelect value={service} names={serviceNames} onChange={(name) => setQuery({ service: name })} />
      <label title="The severity's level (by number range) or its text">
        Severity
        <select name="severity" value={severity} onChange={(event) => setQuery({ severity: inputValue(event) })}>
          <option value="">any</option>
          {withCurrent(severity, SEVERITY_LEVELS).map((level) => (
            <option key={level} value={level}>
              {level}
            </option>
          ))}
        </select>
      </label>
      <label class="grow">
        Body contains
        <input
          type="search"
          name="contains"
          placeholder="text in the body"
          value={containsOf(params)}
          onChange={(event) => setQuery(containsChange(inputValue(event)), { replace: true })}
        />
      </label>
      <label>
        Trace id
        <input
          type="text"
          name="traceId"
          class="mono"
          size={20}
          placeholder="32 hex digits"
          value={textOf(params, "traceId") ?? ""}
          onChange={(event) => setQuery({ traceId: inputValue(event).trim() }, { replace: true })}
        />
      </label>
      <label>
        Attribute
        <input
          type="text"
          name="attr"
          placeholder="key=value or key~text"
          aria-invalid={attrError}
          title="key=value: exact match (attr.KEY); key~text: substring (attrContains.KEY)"
          value={attrText}
          onInput={(event) => setAttrText(inputValue(event))}
          onKeyDown={(event) => {
            if (event.key === "Enter") {
              event.preventDefault();
              addAttr();
            }
          }}
          onBlur={addAttr}
        />
      </label>
      {filterChips(params).length > 0 && (
        <ul class="chips" aria-label="Other filters">
          {filterChips(params).map((chip) => (
            <li key={chip.param} class="chip">
              <span class="mono">{chip.label}</span>
              <button
                type="button"
                aria-label={`Remove filter ${chip.label}`}
                onClick={() => setQuery({ [chip.param]: null })}
              >
                ×
              </button>
            </li>
          ))}
        </ul>
      )}
    </form>
  );
}

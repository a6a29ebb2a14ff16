/**
 * The filters inside a trace, in the query string: `service=` (a select of the trace's
 * services) and `q=` (text matched against span name, service and id; `/` focuses it, Escape
 * clears it and returns to the tree).
 */
import { useEffect, useRef } from "preact/hooks";
import { ServiceSelect } from "../../components/service-select.js";
import { setQuery } from "../../routing/router.js";

export function TraceFilters({
  services,
  service,
  text,
  matches,
  total,
  onLeave,
}: {
  services: readonly string[];
  service: string | undefined;
  text: string | undefined;
  matches: number;
  total: number;
  onLeave: () => void;
}) {
  const input = useRef<HTMLInputElement>(null);
  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      if (event.key !== "/" || event.ctrlKey || event.metaKey || event.altKey) return;
      const target = event.target as HTMLElement | null;
      if (target && (target.tagName === "INPUT" || target.tagName === "SELECT" || target.tagName === "TEXTAREA"))
        return;
      event.preventDefault();
      input.current?.focus();
    };
    document.addEventListener("keydown", onKey);
    return () => document.removeEventListener("keydown", onKey);
  }, []);
  const filtering = Boolean(service || text);
  return (
    <div class="filters trace-filters">
      <ServiceSelect
        value={service ?? ""}
        names={services}
        anyLabel="all services"
        label="Service filter"
        onChange={(name) => setQuery({ service: name }, { replace: true })}
      />
      <label>
        Find span (/)
        <input
          ref={input}
          type="search"
          aria-label="Filter spans by name, service or id"
          placeholder="name, service or span id"
          value={text ?? ""}
          onInput={(event) => setQuery({ q: (event.currentTarget as HTMLInputElement).value }, { replace: true })}
          onKeyDown={(event) => {
            if (event.key === "Escape") {
              setQuery({ q: null }, { replace: true });
              onLeave();
            } else if (event.key === "Enter" || event.key === "ArrowDown") {
              event.preventDefault();
              onLeave();
            }
          }}
        />
      </label>
      <span class="muted filter-count" aria-live="polite">
        {filtering
          ? `${matches.toLocaleString("en-US")} of ${total.toLocaleString("en-US")} spans match; their ancestors are shown for context`
          : ""}
      </span>
      <span class="wf-legend" aria-hidden="true">
        <span class="wf-critical-key" /> critical path
        <span class="wf-log-key" /> log
        <span class="wf-error-mark wf-error-key">!</span> error
      </span>
    </div>
  );
}

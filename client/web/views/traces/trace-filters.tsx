/**
 * The trace search form. The URL holds the search: a select changes it at once (a history
 * entry each, as a deliberate choice), text fields apply on Enter or when they lose focus and
 * replace the entry (no history entry per key typed), an attribute filter is added with Enter.
 */
import { useState } from "preact/hooks";
import { query } from "../../api/query.js";
import { ServiceSelect } from "../../components/service-select.js";
import { useQuery } from "../../live/use-query.js";
import { parseAttrFilter } from "../../routing/query-filters.js";
import { setQuery } from "../../routing/router.js";
import { formOf, queryChangesOf, type TraceSearchForm, withAttr, withoutAttr } from "./trace-search.js";

function apply(form: TraceSearchForm, current: URLSearchParams, replace: boolean): void {
  setQuery(queryChangesOf(form, current), { replace });
}

function fieldValue(event: Event): string {
  return (event.currentTarget as HTMLInputElement | HTMLSelectElement).value;
}

export function TraceFilters({ search, lookback }: { search: URLSearchParams; lookback: string }) {
  const form = formOf(search);
  const services = useQuery(`services?${lookback}`, (signal) => query("listServices", { lookback }, signal));
  const names = (services.data?.data ?? []).map((service) => service.name);
  if (form.service && !names.includes(form.service)) names.unshift(form.service);
  const [attrText, setAttrText] = useState("");
  const [attrProblem, setAttrProblem] = useState<string | undefined>();

  const set = (field: keyof Omit<TraceSearchForm, "attrs">, value: string, replace: boolean) =>
    apply({ ...form, [field]: value }, search, replace);
  /** The form with the typed attribute filter added, or undefined (and a hint) when it is not key=value. */
  const withTypedAttr = (base: TraceSearchForm): TraceSearchForm | undefined => {
    if (!attrText.trim()) return base;
    const filter = parseAttrFilter(attrText);
    if (!filter?.[0]) {
      setAttrProblem("write key=value, e.g. http.route=/orders");
      return undefined;
    }
    setAttrProblem(undefined);
    setAttrText("");
    return withAttr(base, filter);
  };

  return (
    <form
      class="filters trace-filters"
      aria-label="Search traces"
      onSubmit={(event) => {
        event.preventDefault();
        const fields = new FormData(event.currentTarget);
        const text = (name: string) => String(fields.get(name) ?? "");
        const next = withTypedAttr({ ...form, operation: text("operation"), durationMin: text("durationMin") });
        // A new attribute filter is a deliberate step worth a history entry; retyped text is not.
        if (next) apply(next, search, next.attrs.length === form.attrs.length);
      }}
    >
      <ServiceSelect value={form.service} names={names} onChange={(name) => set("service", name, false)} />
      <label>
        Status
        <select name="status" value={form.status} onChange={(event) => set("status", fieldValue(event), false)}>
          <option value="">any</option>
          <option value="ok">ok</option>
          <option value="error">error</option>
          {form.status && form.status !== "ok" && form.status !== "error" && (
            <option value={form.status}>{form.status}</option>
          )}
        </select>
      </label>
      <label>
        Root operation
        <input
          key={`operation:${form.operation}`}
          name="operation"
          type="search"
          defaultValue={form.operation}
          placeholder="GET /checkout"
          onChange={(event) => set("operation", fieldValue(event), true)}
        />
      </label>
      <label>
        Min duration (ms)
        <input
          key={`durationMin:${form.durationMin}`}
          name="durationMin"
          class="duration-input"
          inputMode="decimal"
          defaultValue={form.durationMin}
          placeholder="0"
          onChange={(event) => set("durationMin", fieldValue(event), true)}
        />
      </label>
      <label>
        Attribute
        <input
          name="attr"
          value={attrText}
          placeholder="key=value, Enter"
          aria-describedby={attrProblem ? "attr-problem" : undefined}
          onInput={(event) => setAttrText(fieldValue(event))}
        />
      </label>
      <button type="submit">Search</button>
      {attrProblem && (
        <span id="attr-problem" class="status-error attr-problem" role="alert">
          {attrProblem}
        </span>
      )}
      {form.attrs.length > 0 && (
        <ul class="attr-chips" aria-label="Attribute filters">
          {form.attrs.map(([key, value]) => (
            <li key={key}>
              <code>
                <bdi>{key}</bdi>=<bdi>{value}</bdi>
              </code>
              <button
                type="button"
                aria-label={`Remove filter ${key}=${value}`}
                onClick={() => apply(withoutAttr(form, key), search, false)}
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

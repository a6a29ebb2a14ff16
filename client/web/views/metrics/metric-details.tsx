/**
 * What the collector knows of the selected metric (/api/metrics/describe): its type, unit,
 * temporality and services, and its series' attribute keys with their values; a value is a
 * button that filters the chart by it (`attr.KEY=VALUE` in the address), again to remove it.
 */
import type { AttributeFilter } from "../../../../shared/query-messages.js";
import type { MetricDetailRecord } from "../../../../shared/query-types.js";
import { formatDateTime, isoToMs } from "../../format/time.js";
import { setQuery } from "../../routing/router.js";
import { typeLabel } from "./metric-kinds.js";

function toggleFilter(key: string, value: string, active: boolean): void {
  // As a list, so that an empty value is kept (setQuery drops a parameter set to "").
  setQuery({ [`attr.${key}`]: active ? null : [value] });
}

/**
 * `temporalities`: those of the identities read as one with this one (a cumulative counter and a
 * delta one), where there are several; the answer names the one written to last, which changes.
 */
export function MetricDetails({
  detail,
  attrs,
  temporalities = [],
}: {
  detail: MetricDetailRecord;
  attrs: AttributeFilter[];
  temporalities?: readonly string[];
}) {
  const isActive = (key: string, value: string) => attrs.some(([k, v]) => k === key && v === value);
  const temporality = temporalities.length > 1 ? temporalities.join(" and ") : detail.temporality;
  return (
    <section class="metric-details" aria-label="About this metric">
      <h3>About</h3>
      <dl>
        <dt>Type</dt>
        <dd>{typeLabel(detail)}</dd>
        <dt>Unit</dt>
        <dd class="mono">{detail.unit || "(none)"}</dd>
        {temporality && (
          <>
            <dt>Temporality</dt>
            <dd>{temporality}</dd>
          </>
        )}
        <dt>Services</dt>
        <dd>{detail.services.join(", ")}</dd>
        <dt>Series</dt>
        <dd>{detail.seriesCount}</dd>
        <dt>First point</dt>
        <dd>{formatDateTime(isoToMs(detail.firstTime))}</dd>
        <dt>Last point</dt>
        <dd>{formatDateTime(isoToMs(detail.lastTime))}</dd>
      </dl>
      <h3>Attributes</h3>
      {detail.attributes.length === 0 && <p class="muted">The series carry no attributes.</p>}
      {detail.attributes.map((attribute) => (
        <div class="metric-attribute" key={attribute.key}>
          <span class="mono attribute-key">{attribute.key}</span>
          <span class="attribute-values">
            {attribute.values.map(({ value, series }) => {
              const active = isActive(attribute.key, value);
              return (
                <button
                  type="button"
                  key={value}
                  class="attribute-value"
                  aria-pressed={active}
                  title={active ? "Remove this filter" : `Only series with ${attribute.key}=${value}`}
                  onClick={() => toggleFilter(attribute.key, value, active)}
                >
                  {value === "" ? <em>(empty)</em> : <bdi>{value}</bdi>} <span class="muted">{series}</span>
                </button>
              );
            })}
            {attribute.more && <span class="muted">and more</span>}
          </span>
        </div>
      ))}
    </section>
  );
}

/** The attribute filters in force, each removable. */
export function ActiveFilters({ attrs, service }: { attrs: AttributeFilter[]; service: string | undefined }) {
  if (attrs.length === 0 && !service) return null;
  return (
    <div class="metric-filters">
      {service && (
        <button type="button" class="attribute-value" aria-pressed={true} onClick={() => setQuery({ service: null })}>
          service=<bdi>{service}</bdi> ×
        </button>
      )}
      {attrs.map(([key, value]) => (
        <button
          type="button"
          key={key}
          class="attribute-value"
          aria-pressed={true}
          aria-label={`Remove filter ${key}=${value}`}
          onClick={() => setQuery({ [`attr.${key}`]: null })}
        >
          <bdi>{key}</bdi>=<bdi>{value}</bdi> ×
        </button>
      ))}
    </div>
  );
}

/**
 * JSON Schemas of the records the collector serves (schemas/api/*.json) and of the composite
 * records built from them. The OpenAPI document and the CLI's document schema both use these,
 * so the two cannot drift apart.
 */
import { readFileSync } from "node:fs";
import { packagePath } from "./package-root.js";

export type Schema = Record<string, unknown>;

/** One of schemas/api/NAME.json. */
export function apiSchema(name: string): Schema {
  return JSON.parse(readFileSync(packagePath("schemas", "api", `${name}.json`), "utf8")) as Schema;
}

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
const nullableRef = (name: string) => ({ nullable: true, allOf: [ref(name)] });

function withProperties(base: Schema, extra: Record<string, unknown>, required: string[]): Schema {
  return {
    ...base,
    title: undefined,
    properties: { ...(base.properties as Schema), ...extra },
    required: [...(base.required as string[]), ...required],
  };
}

/**
 * The records the query routes answer with, keyed by name, with references in OpenAPI's
 * `#/components/schemas/NAME` form.
 */
export function querySchemas(): Record<string, Schema> {
  const summary = apiSchema("trace-summary");
  const span = apiSchema("span");
  return {
    PageMeta: apiSchema("page-meta"),
    Attributes: apiSchema("attributes"),
    Service: apiSchema("service"),
    TraceSummary: summary,
    Span: span,
    SpanTreeNode: apiSchema("span-tree-node"),
    Log: apiSchema("log"),
    StatsRow: apiSchema("stats-row"),
    FacetValue: apiSchema("facet-value"),
    AuditReport: apiSchema("audit-report"),
    AuditFinding: apiSchema("audit-finding"),
    MetricSummary: apiSchema("metric-summary"),
    MetricSeries: apiSchema("metric-series"),
    MetricDetail: apiSchema("metric-detail"),
    TraceDetail: withProperties(
      summary,
      {
        tree: {
          type: "array",
          items: ref("SpanTreeNode"),
          description: "The answer's spans (at most 10,000, in start order) as a tree, flat in depth-first order.",
        },
        spans: {
          type: "array",
          items: ref("Span"),
          description: "With include=spans: the answer's spans (at most 10,000), flat, in start order.",
        },
        logs: {
          type: "array",
          items: ref("Log"),
          description: "With include=logs: correlated logs, oldest first, up to 500.",
        },
        logsTruncated: { type: "boolean", description: "With include=logs: more than 500 correlated logs exist." },
      },
      ["tree"],
    ),
    SpanDetail: withProperties(
      span,
      {
        trace: { ...nullableRef("TraceSummary"), description: "The span's trace." },
        parent: { ...nullableRef("Span"), description: "The parent span; null for a root or a missing parent." },
        missingParent: { type: "boolean", description: "The span names a parent that is not in the store." },
      },
      ["trace", "parent", "missingParent"],
    ),
  };
}

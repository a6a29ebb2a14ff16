import type { PageMeta, SpanRecord, SpanTreeNode } from "../../shared/api-records.js";
import { type Paging, pageMeta, pagingFor } from "./paging.js";
import { type ParsedParams, positiveInteger, QueryError, text } from "./query-params.js";
import { buildSpanTree } from "./record-mapping.js";
import { MAX_TRACE_SPANS, type TelemetryReader, type TraceDetail } from "./telemetry-reader.js";

/**
 * One trace and its spans. Both answers are bounded: at most MAX_TRACE_SPANS spans each, in
 * start order; when a trace has more, `meta.truncated` is set and `meta.nextCursor` continues
 * on /api/traces/:id/spans, whichever of the two routes issued it.
 */

type Include = "logs" | "spans" | "attributes";

/** The most correlated logs `include=logs` embeds in a trace. */
const EMBEDDED_LOGS = 500;
/** /api/traces/:id/spans: a trace within the cap comes whole by default, as before it was paged. */
const TRACE_SPAN_LIMITS = { limit: MAX_TRACE_SPANS, cap: MAX_TRACE_SPANS, lookbackMs: 0 };

function includeList(raw: string, name: string): Include[] {
  const items = raw.split(",").map((item) => item.trim());
  for (const item of items) {
    if (item !== "logs" && item !== "spans" && item !== "attributes") {
      throw new QueryError(`invalid ${name} "${item}": use a comma-separated list of logs, spans, attributes`);
    }
  }
  return items as Include[];
}

export const TRACE_ROUTE_PARAMS = {
  trace: { params: { include: includeList, limit: positiveInteger } },
  traceSpans: { params: { limit: positiveInteger, cursor: text } },
};

/** Adds span attributes to tree nodes, for `include=attributes`. */
function withAttributes(nodes: SpanTreeNode[], spans: Map<string, SpanRecord>): unknown[] {
  return nodes.map((node) => ({ ...node, attributes: spans.get(node.spanId)?.attributes ?? {} }));
}

/**
 * The paging of a trace's spans. Both routes page the same keyset (start time, span id) under
 * one fingerprint, so the cursor of a truncated trace answer continues on the spans route.
 */
function traceSpanPaging(traceId: string, parsed: ParsedParams, nowNs: bigint, key: Buffer): Paging {
  const { limit, cursor } = parsed.values;
  const values = { ...(limit !== undefined ? { limit } : {}), ...(cursor !== undefined ? { cursor } : {}) };
  return pagingFor(`trace-spans:${traceId}`, { values, attrs: [], attrContains: [] }, TRACE_SPAN_LIMITS, nowNs, key);
}

function spansMeta(detail: TraceDetail, paging: Paging): PageMeta {
  return { ...pageMeta({ items: detail.spans, more: detail.more, last: detail.last }, paging), lookback: null };
}

export interface TraceRequest {
  traceId: string;
  parsed: ParsedParams;
  nowNs: bigint;
  cursorKey: Buffer;
}

/** `/api/traces/:traceId`: summary, tree and what `include` asks for; null when unknown. */
export function traceAnswer(req: TraceRequest, reader: TelemetryReader): unknown | null {
  const include = new Set((req.parsed.values.include as Include[] | undefined) ?? []);
  const paging = traceSpanPaging(req.traceId, req.parsed, req.nowNs, req.cursorKey);
  const detail = reader.trace(req.traceId, { limit: paging.page.limit });
  if (!detail) return null;
  // A span whose parent is stored but beyond this answer is at the top without being an orphan.
  const inAnswer = new Set(detail.spans.map((span) => span.spanId));
  const beyond = detail.more
    ? reader.storedSpanIds(req.traceId, [
        ...new Set(
          detail.spans.flatMap((span) =>
            span.parentSpanId !== null && !inAnswer.has(span.parentSpanId) ? [span.parentSpanId] : [],
          ),
        ),
      ])
    : new Set<string>();
  const tree = buildSpanTree(detail.spans, beyond);
  const data: Record<string, unknown> = {
    ...detail.summary,
    tree: include.has("attributes") ? withAttributes(tree, new Map(detail.spans.map((s) => [s.spanId, s]))) : tree,
  };
  if (include.has("spans")) data.spans = detail.spans;
  if (include.has("logs")) {
    const logs = reader.logs({
      traceId: req.traceId,
      attrs: [],
      attrContains: [],
      page: { fromNs: 0n, toNs: 2n ** 63n - 1n, limit: EMBEDDED_LOGS },
    });
    data.logs = logs.items;
    data.logsTruncated = logs.more;
  }
  return { data, meta: spansMeta(detail, paging) };
}

/** `/api/traces/:traceId/spans`: one page of the trace's spans, flat; null when unknown. */
export function traceSpansAnswer(req: TraceRequest, reader: TelemetryReader): unknown | null {
  const paging = traceSpanPaging(req.traceId, req.parsed, req.nowNs, req.cursorKey);
  const detail = reader.trace(req.traceId, {
    limit: paging.page.limit,
    ...(paging.page.after ? { after: paging.page.after } : {}),
  });
  if (!detail) return null;
  return { data: detail.spans, meta: spansMeta(detail, paging) };
}

import type { PageMeta, SpanRecord, SpanTreeNode } from "../../shared/api-records.js";
import { QueryError } from "../../shared/query-error.js";
import { MAX_TRACE_SPANS } from "../../shared/query-routes.js";
import type {
  GetTraceRequest,
  GetTraceSpansRequest,
  QueryAnswerOf,
  SpanTreeNodeWithAttributes,
  TraceDetailRecord,
} from "../../shared/query-types.js";
import { type Paging, pageMeta, pagingFor } from "./paging.js";
import { buildSpanTree } from "./record-mapping.js";
import type { TelemetryReader, TraceDetail } from "./telemetry-reader.js";

/**
 * One trace and its spans. Both answers are bounded: at most MAX_TRACE_SPANS spans each, in
 * start order; when a trace has more, `meta.truncated` is set and `meta.nextCursor` continues
 * on /api/traces/:id/spans, whichever of the two routes issued it.
 */

/** The most correlated logs `include=logs` embeds in a trace. */
const EMBEDDED_LOGS = 500;
/** /api/traces/:id/spans: a trace within the cap comes whole by default, as before it was paged. */
const TRACE_SPAN_LIMITS = { limit: MAX_TRACE_SPANS, cap: MAX_TRACE_SPANS, lookbackMs: 0 };

/** What the trace answers need besides the request: the reader, the time and the cursor key. */
export interface TraceContext {
  reader: TelemetryReader;
  nowNs: bigint;
  cursorKey: Buffer;
}

/** Adds span attributes to tree nodes, for `include=attributes`. */
function withAttributes(nodes: SpanTreeNode[], spans: Map<string, SpanRecord>): SpanTreeNodeWithAttributes[] {
  return nodes.map((node) => ({ ...node, attributes: spans.get(node.spanId)?.attributes ?? {} }));
}

/**
 * The paging of a trace's spans. Both routes page the same keyset (start time, span id) under
 * one fingerprint, so the cursor of a truncated trace answer continues on the spans route.
 */
function traceSpanPaging(traceId: string, start: { limit?: number; cursor?: string }, ctx: TraceContext): Paging {
  return pagingFor(
    { route: `trace-spans:${traceId}`, filters: {} },
    start,
    TRACE_SPAN_LIMITS,
    ctx.nowNs,
    ctx.cursorKey,
  );
}

function spansMeta(detail: TraceDetail, paging: Paging): PageMeta {
  return { ...pageMeta({ items: detail.spans, more: detail.more, last: detail.last }, paging), lookback: null };
}

function unknownTrace(traceId: string): QueryError {
  return new QueryError(`no trace ${traceId} in the store`, "not_found");
}

/** `getTrace`: summary, tree and what `include` asks for. */
export function traceAnswer(req: GetTraceRequest, ctx: TraceContext): QueryAnswerOf<"getTrace"> {
  const { reader } = ctx;
  const include = new Set(req.include ?? []);
  const paging = traceSpanPaging(req.traceId, { ...(req.limit !== undefined ? { limit: req.limit } : {}) }, ctx);
  const detail = reader.trace(req.traceId, { limit: paging.page.limit });
  if (!detail) throw unknownTrace(req.traceId);
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
  const data: TraceDetailRecord = {
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

/** `getTraceSpans`: one page of the trace's spans, flat. */
export function traceSpansAnswer(req: GetTraceSpansRequest, ctx: TraceContext): QueryAnswerOf<"getTraceSpans"> {
  const paging = traceSpanPaging(req.traceId, req, ctx);
  const detail = ctx.reader.trace(req.traceId, {
    limit: paging.page.limit,
    ...(paging.page.after ? { after: paging.page.after } : {}),
  });
  if (!detail) throw unknownTrace(req.traceId);
  return { data: detail.spans, meta: spansMeta(detail, paging) };
}

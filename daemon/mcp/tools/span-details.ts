/** `get_span_details`: everything about a few spans, after an outline or a search named them. */
import type { SpanRecord } from "../../../shared/api-records.js";
import type { QueryApi } from "../../../shared/query-api.js";
import { queryApiErrorCode } from "../../../shared/query-api.js";
import { traceUrl } from "../../../shared/ui-links.js";
import { fitItems, MAX_MAX_BYTES, toolInput, toolOutput } from "../budget.js";
import { type AnswerTail, type McpTool, type NextCall, ToolInputError } from "../mcp-tool.js";
import { SPAN_ID_PROPERTY, TRACE_ID_PROPERTY } from "./common-inputs.js";
import { continuationCall, spanDetailsCall, traceLogsCall, traceOutlineCall } from "./next-calls.js";
import { DETAIL_LEVELS, type SpanDetail, spanDetail } from "./span-detail-record.js";
import { SPAN_DETAIL_SCHEMA } from "./span-detail-schema.js";
import { label } from "./telemetry-text.js";
import { fetchTraceSpans } from "./trace-spans.js";

/** The most span ids one call takes. */
export const MAX_SPAN_IDS = 20;

interface SpanDetailsArgs {
  span_ids: string[];
  trace_id?: string;
  max_bytes?: number;
}

interface SpanDetailsAnswer extends AnswerTail {
  spans: SpanDetail[];
  not_found: string[];
}

/** No span with the id (in the trace, when one was named). */
class SpanNotFound extends Error {
  override name = "SpanNotFound";
  readonly code = "not_found";
}

export const getSpanDetails: McpTool<SpanDetailsArgs, SpanDetailsAnswer> = {
  name: "get_span_details",
  title: "Span details",
  description: `Everything about up to ${MAX_SPAN_IDS} spans: attributes, events (exceptions with type, message and stack trace), links, resource attributes, scope, status and times. Use it on the few spans an outline, a critical path or a search pointed at; pass trace_id as well, since span ids are unique only within a trace. Long strings are cut with a …[+N chars] marker; when the spans do not fit max_bytes, strings and lists are cut shorter first, then the spans left out are named in the continuation. Ids that match no span are listed in not_found. Then search_logs with the span's trace_id and span_id for its logs, or the parent's details.`,
  inputSchema: toolInput(
    {
      span_ids: {
        type: "array",
        items: SPAN_ID_PROPERTY,
        minItems: 1,
        maxItems: MAX_SPAN_IDS,
        description: `Span ids, 1 to ${MAX_SPAN_IDS}`,
      },
      trace_id: {
        ...TRACE_ID_PROPERTY,
        description: "The spans' trace: picks the right span when ids repeat across traces",
      },
    },
    ["span_ids"],
  ),
  outputSchema: toolOutput(
    {
      spans: { type: "array", items: SPAN_DETAIL_SCHEMA, description: "In the order asked" },
      not_found: { type: "array", items: { type: "string" }, description: "Ids that match no span" },
    },
    ["spans", "not_found"],
  ),
  async run(args, ctx) {
    const ids = [...new Set(args.span_ids.map((id) => id.toLowerCase()))];
    if (ids.length > MAX_SPAN_IDS)
      throw new ToolInputError(
        `at most ${MAX_SPAN_IDS} span ids per call (got ${ids.length}); ask for the rest in another call`,
      );
    const traceId = args.trace_id?.toLowerCase();
    const { found, missing, failure, orphans } = await findSpans(ctx.api, ids, traceId);
    if (found.length === 0) throw failure ?? new SpanNotFound(`no span with the ids ${ids.join(", ")}`);
    const build = (level: number) =>
      fitItems(
        found.map((span) => spanDetail(span, traceUrl(ctx.baseUrl, span.traceId, span.spanId), DETAIL_LEVELS[level])),
        ctx.maxBytes,
        (spans, truncated): SpanDetailsAnswer => ({
          spans: [...spans],
          not_found: missing,
          truncated,
          ...(truncated
            ? {
                // Not even one span fits: the same ids again, with the largest budget.
                continuation: continuation(
                  found.slice(spans.length),
                  traceId,
                  spans.length ? args.max_bytes : MAX_MAX_BYTES,
                ),
              }
            : {}),
          next: nextCalls(found[0] as SpanRecord, orphans),
        }),
      );
    // The loosest level that keeps every span; else the one keeping the most.
    let best = build(0);
    for (let level = 1; level < DETAIL_LEVELS.length && best.kept < found.length; level += 1) {
      const tighter = build(level);
      if (tighter.kept > best.kept) best = tighter;
    }
    const left = found.length - best.kept;
    const notFound = missing.length ? `; not found: ${missing.join(", ")}` : "";
    return {
      structured: best.answer,
      summary: `${best.kept} of ${ids.length} spans${left ? `, ${left} left for the continuation (max_bytes)` : ""}${notFound}.`,
    };
  },
};

/**
 * Each id's span: the newest span with the id, unless it belongs to another trace than the one
 * named; then the named trace's own spans are looked through (fetched once). `orphans`: the
 * found spans whose parent is not stored, which no call can show.
 */
async function findSpans(
  api: QueryApi,
  ids: readonly string[],
  traceId: string | undefined,
): Promise<{ found: SpanRecord[]; missing: string[]; failure?: unknown; orphans: Set<SpanRecord> }> {
  const found: SpanRecord[] = [];
  const missing: string[] = [];
  const orphans = new Set<SpanRecord>();
  let failure: unknown;
  let traceSpans: Promise<SpanRecord[]> | undefined;
  for (const id of ids) {
    let span: SpanRecord | undefined;
    try {
      const detail = (await api.getSpan({ spanId: id })).data;
      span = detail;
      if (detail.missingParent) orphans.add(detail);
    } catch (error) {
      if (queryApiErrorCode(error) !== "not_found") throw error;
      failure ??= error;
    }
    if (traceId !== undefined && span?.traceId !== traceId) {
      traceSpans ??= fetchTraceSpans(api, traceId).then(
        ({ spans }) => spans,
        (error: unknown) => {
          if (queryApiErrorCode(error) !== "not_found") throw error;
          failure ??= error;
          return [];
        },
      );
      const spans = await traceSpans;
      span = spans.find((candidate) => candidate.spanId === id);
      const parent = span?.parentSpanId;
      if (span && parent && !spans.some((candidate) => candidate.spanId === parent)) orphans.add(span);
    }
    if (span === undefined) missing.push(id);
    else found.push(span);
  }
  return { found, missing, failure, orphans };
}

function continuation(
  left: readonly SpanRecord[],
  traceId: string | undefined,
  maxBytes: number | undefined,
): NextCall {
  const spanIds = left.map((span) => span.spanId);
  return continuationCall(
    "get_span_details",
    { span_ids: spanIds, ...(traceId === undefined ? {} : { trace_id: traceId }) },
    maxBytes,
    `the ${left.length} spans that did not fit max_bytes`,
  );
}

/** The first span's logs, its parent's details (where its parent is stored), its trace's outline. */
function nextCalls(span: SpanRecord, orphans: ReadonlySet<SpanRecord>): NextCall[] {
  const name = label(span.operation);
  const next: NextCall[] = [traceLogsCall(span.traceId, `the logs written during ${name}`, span.spanId)];
  if (span.parentSpanId !== null && !orphans.has(span))
    next.push(spanDetailsCall(span.traceId, [span.parentSpanId], `the parent of ${name}`));
  next.push(traceOutlineCall(span.traceId, "the whole trace around it"));
  return next;
}

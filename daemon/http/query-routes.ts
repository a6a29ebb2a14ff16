import type { Request, Response, Router } from "express";
import express from "express";
import { nowNs } from "../../shared/time.js";
import { pageMeta, pagingFor } from "../query/paging.js";
import type { AsyncReader } from "../query/query-client.js";
import {
  hexId,
  lookback,
  MAX_LOOKBACK_MS,
  nonNegativeNumber,
  oneOf,
  type ParsedParams,
  parseParams,
  positiveInteger,
  QueryError,
  type RouteParams,
  text,
} from "../query/query-params.js";
import { buildSpanTree } from "../query/record-mapping.js";
import type { SpanRecord, SpanTreeNode } from "../query/records.js";
import { HttpError } from "./http-error.js";

const FIFTEEN_MINUTES = 15 * 60_000;
const TRACE_LIMITS = { limit: 20, cap: 100, lookbackMs: FIFTEEN_MINUTES };
const SPAN_LIMITS = { limit: 100, cap: 500, lookbackMs: FIFTEEN_MINUTES };
const LOG_LIMITS = { limit: 100, cap: 500, lookbackMs: FIFTEEN_MINUTES };
/** Logs of one trace or span: the trace may be older than 15 minutes, so look back the maximum. */
const CORRELATED_LOG_LIMITS = { limit: 100, cap: 500, lookbackMs: MAX_LOOKBACK_MS };
/** The most correlated logs `include=logs` embeds in a trace. */
const EMBEDDED_LOGS = 500;

const paging = { lookback, limit: positiveInteger, cursor: text };

export const ROUTE_PARAMS = {
  services: { params: { lookback } },
  traces: {
    params: { service: text, status: oneOf("ok", "error"), operation: text, durationMin: nonNegativeNumber, ...paging },
    attr: true,
  },
  trace: { params: { include: includeList } },
  traceSpans: { params: {} },
  correlatedLogs: { params: paging },
  spans: {
    params: {
      service: text,
      traceId: hexId(16),
      operation: text,
      parentOperation: text,
      status: oneOf("ok", "error"),
      ...paging,
    },
    attr: true,
    attrContains: true,
  },
  span: { params: {} },
  logs: {
    params: {
      service: text,
      severity: text,
      traceId: hexId(16),
      spanId: hexId(8),
      body: text,
      contains: text,
      ...paging,
    },
    attr: true,
    attrContains: true,
  },
} satisfies Record<string, RouteParams>;

type Include = "logs" | "spans" | "attributes";

function includeList(raw: string, name: string): Include[] {
  const items = raw.split(",").map((item) => item.trim());
  for (const item of items) {
    if (item !== "logs" && item !== "spans" && item !== "attributes") {
      throw new QueryError(`invalid ${name} "${item}": use a comma-separated list of logs, spans, attributes`);
    }
  }
  return items as Include[];
}

function pathId(raw: string | undefined, bytes: number, what: string): string {
  if (!raw || !new RegExp(`^[0-9a-fA-F]{${bytes * 2}}$`).test(raw)) {
    throw new QueryError(`invalid ${what} "${raw}": expected ${bytes * 2} hex characters`);
  }
  return raw.toLowerCase();
}

function params(req: Request, route: RouteParams): ParsedParams {
  return parseParams(req.query as Record<string, unknown>, route);
}

function str(values: Record<string, unknown>, name: string): string | undefined {
  return typeof values[name] === "string" ? (values[name] as string) : undefined;
}

/** Adds span attributes to tree nodes, for `include=attributes`. */
function withAttributes(nodes: SpanTreeNode[], spans: Map<string, SpanRecord>): unknown[] {
  return nodes.map((node) => ({
    ...node,
    attributes: spans.get(node.spanId)?.attributes ?? {},
    children: withAttributes(node.children, spans),
  }));
}

type Handler = (req: Request, res: Response) => Promise<void>;

/** The `/api` query routes, over the reader in the query thread. */
export function queryRoutes(reader: AsyncReader): Router {
  const router = express.Router();
  const get = (path: string | string[], handler: Handler) => {
    router.get(path, (req, res, next) => {
      handler(req, res).catch((error) => next(error instanceof QueryError ? new HttpError(400, error.message) : error));
    });
    router.all(path, (req, _res, next) => next(new HttpError(405, `use GET for ${req.path}`, { Allow: "GET" })));
  };

  get("/api/services", async (req, res) => {
    const { values } = params(req, ROUTE_PARAMS.services);
    const lookbackMs = typeof values.lookback === "number" ? values.lookback : FIFTEEN_MINUTES;
    const data = await reader.services(nowNs() - BigInt(lookbackMs) * 1_000_000n);
    res.json({
      data,
      meta: {
        limit: data.length,
        lookback: req.query.lookback ?? "15m",
        returned: data.length,
        truncated: false,
        nextCursor: null,
      },
    });
  });

  get(["/api/traces", "/api/traces/search"], async (req, res) => {
    const parsed = params(req, ROUTE_PARAMS.traces);
    const page = pagingFor("traces", parsed, TRACE_LIMITS, nowNs());
    const { values } = parsed;
    const result = await reader.traces({
      ...(str(values, "service") !== undefined ? { service: str(values, "service") } : {}),
      ...(values.status !== undefined ? { status: values.status as "ok" | "error" } : {}),
      ...(str(values, "operation") !== undefined ? { operation: str(values, "operation") } : {}),
      ...(typeof values.durationMin === "number" ? { durationMinMs: values.durationMin } : {}),
      attrs: parsed.attrs,
      page: page.page,
    });
    res.json({ data: result.items, meta: pageMeta(result, page) });
  });

  get("/api/traces/:traceId", async (req, res) => {
    const traceId = pathId(req.params.traceId as string, 16, "trace id");
    const { values } = params(req, ROUTE_PARAMS.trace);
    const include = new Set((values.include as Include[] | undefined) ?? []);
    const detail = await reader.trace(traceId);
    if (!detail) throw new HttpError(404, `no trace ${traceId} in the store`);
    const tree = buildSpanTree(detail.spans);
    const data: Record<string, unknown> = {
      ...detail.summary,
      tree: include.has("attributes") ? withAttributes(tree, new Map(detail.spans.map((s) => [s.spanId, s]))) : tree,
    };
    if (include.has("spans")) data.spans = detail.spans;
    if (include.has("logs")) {
      const logs = await reader.logs({
        traceId,
        attrs: [],
        attrContains: [],
        page: { fromNs: 0n, toNs: 2n ** 63n - 1n, limit: EMBEDDED_LOGS },
      });
      data.logs = logs.items;
      data.logsTruncated = logs.more;
    }
    res.json({ data });
  });

  get("/api/traces/:traceId/spans", async (req, res) => {
    const traceId = pathId(req.params.traceId as string, 16, "trace id");
    params(req, ROUTE_PARAMS.traceSpans);
    const detail = await reader.trace(traceId);
    if (!detail) throw new HttpError(404, `no trace ${traceId} in the store`);
    const n = detail.spans.length;
    res.json({
      data: detail.spans,
      meta: { limit: n, lookback: null, returned: n, truncated: false, nextCursor: null },
    });
  });

  get("/api/traces/:traceId/logs", async (req, res) => {
    const traceId = pathId(req.params.traceId as string, 16, "trace id");
    const parsed = params(req, ROUTE_PARAMS.correlatedLogs);
    const page = pagingFor(`trace-logs:${traceId}`, parsed, CORRELATED_LOG_LIMITS, nowNs());
    const result = await reader.logs({ traceId, attrs: [], attrContains: [], page: page.page });
    res.json({ data: result.items, meta: pageMeta(result, page) });
  });

  get("/api/spans/search", async (req, res) => {
    const parsed = params(req, ROUTE_PARAMS.spans);
    const page = pagingFor("spans", parsed, SPAN_LIMITS, nowNs());
    const { values } = parsed;
    const result = await reader.spans({
      ...(str(values, "service") !== undefined ? { service: str(values, "service") } : {}),
      ...(str(values, "traceId") !== undefined ? { traceId: str(values, "traceId") } : {}),
      ...(str(values, "operation") !== undefined ? { operation: str(values, "operation") } : {}),
      ...(str(values, "parentOperation") !== undefined ? { parentOperation: str(values, "parentOperation") } : {}),
      ...(values.status !== undefined ? { status: values.status as "ok" | "error" } : {}),
      attrs: parsed.attrs,
      attrContains: parsed.attrContains,
      page: page.page,
    });
    res.json({ data: result.items, meta: pageMeta(result, page) });
  });

  get("/api/spans/:spanId", async (req, res) => {
    const spanId = pathId(req.params.spanId as string, 8, "span id");
    params(req, ROUTE_PARAMS.span);
    // Span ids are unique within a trace; the most recent span with this id answers.
    const [span] = await reader.span(spanId);
    if (!span) throw new HttpError(404, `no span ${spanId} in the store`);
    const detail = await reader.trace(span.traceId);
    const parent = span.parentSpanId ? (detail?.spans.find((s) => s.spanId === span.parentSpanId) ?? null) : null;
    res.json({
      data: {
        ...span,
        trace: detail?.summary ?? null,
        parent,
        missingParent: span.parentSpanId !== null && parent === null,
      },
    });
  });

  get("/api/spans/:spanId/logs", async (req, res) => {
    const spanId = pathId(req.params.spanId as string, 8, "span id");
    const parsed = params(req, ROUTE_PARAMS.correlatedLogs);
    const [span] = await reader.span(spanId);
    if (!span) throw new HttpError(404, `no span ${spanId} in the store`);
    const page = pagingFor(`span-logs:${spanId}`, parsed, CORRELATED_LOG_LIMITS, nowNs());
    const result = await reader.logs({ traceId: span.traceId, spanId, attrs: [], attrContains: [], page: page.page });
    res.json({ data: result.items, meta: pageMeta(result, page) });
  });

  get(["/api/logs", "/api/logs/search"], async (req, res) => {
    const parsed = params(req, ROUTE_PARAMS.logs);
    const page = pagingFor("logs", parsed, LOG_LIMITS, nowNs());
    const { values } = parsed;
    const contains = str(values, "contains") ?? str(values, "body");
    const result = await reader.logs({
      ...(str(values, "service") !== undefined ? { service: str(values, "service") } : {}),
      ...(str(values, "severity") !== undefined ? { severity: str(values, "severity") } : {}),
      ...(str(values, "traceId") !== undefined ? { traceId: str(values, "traceId") } : {}),
      ...(str(values, "spanId") !== undefined ? { spanId: str(values, "spanId") } : {}),
      ...(contains !== undefined ? { contains } : {}),
      attrs: parsed.attrs,
      attrContains: parsed.attrContains,
      page: page.page,
    });
    res.json({ data: result.items, meta: pageMeta(result, page) });
  });

  return router;
}

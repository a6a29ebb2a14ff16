import type { LogRecord, ServiceRecord, SpanRecord, TraceSummary } from "./records.js";

/** The time window of a query and where the previous page stopped. */
export interface PageRequest {
  fromNs: bigint;
  toNs: bigint;
  limit: number;
  /** Sort key of the last item of the previous page; absent on the first page. */
  after?: { ns: bigint; id: string };
}

/** A page of items, newest first, and the sort key of its last item. */
export interface PageResult<T> {
  items: T[];
  /** More items match beyond this page. */
  more: boolean;
  last: { ns: bigint; id: string } | null;
}

export interface TraceQuery {
  service?: string;
  status?: "ok" | "error";
  operation?: string;
  durationMinMs?: number;
  attrs: [string, string][];
  page: PageRequest;
}

export interface SpanQuery {
  service?: string;
  traceId?: string;
  operation?: string;
  parentOperation?: string;
  status?: "ok" | "error";
  attrs: [string, string][];
  attrContains: [string, string][];
  page: PageRequest;
}

export interface LogQuery {
  service?: string;
  severity?: string;
  traceId?: string;
  spanId?: string;
  contains?: string;
  attrs: [string, string][];
  attrContains: [string, string][];
  page: PageRequest;
}

export interface TraceDetail {
  summary: TraceSummary;
  spans: SpanRecord[];
}

/**
 * Everything the query API reads, behind one interface: the HTTP handlers know nothing of
 * SQL, and the implementation can run in a worker thread.
 */
export interface TelemetryReader {
  services(fromNs: bigint): ServiceRecord[];
  traces(query: TraceQuery): PageResult<TraceSummary>;
  trace(traceId: string): TraceDetail | null;
  spans(query: SpanQuery): PageResult<SpanRecord>;
  span(spanId: string): SpanRecord[];
  logs(query: LogQuery): PageResult<LogRecord>;
}

/**
 * The records the query API returns (keys camelCase), for the collector and its clients. Absent optional values are null.
 * Timestamps are ISO 8601 UTC with nine fraction digits; raw records also carry the exact
 * nanoseconds as decimal text. Durations: integer nanoseconds in raw records, milliseconds in
 * summaries. The JSON Schemas in `schemas/api/` describe the same shapes.
 */

import type { SettingSource } from "./collector-settings.js";
import type { CollectorEndpoint } from "./endpoints.js";
/** Any JSON value: how attribute values and log bodies are served. */
export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };

export type Attributes = Record<string, JsonValue>;

export interface ServiceRecord {
  name: string;
  lastSeenAt: string;
}

export interface TraceSummary {
  traceId: string;
  rootServiceName: string | null;
  rootOperation: string | null;
  rootSpanId: string | null;
  startTime: string;
  endTime: string;
  durationMs: number;
  spanCount: number;
  errorCount: number;
  status: "ok" | "error";
  services: string[];
}

export interface SpanEventRecord {
  name: string;
  time: string;
  timeUnixNano: string;
  attributes: Attributes;
  droppedAttributesCount: number;
}

export interface SpanLinkRecord {
  traceId: string | null;
  spanId: string | null;
  traceState: string | null;
  attributes: Attributes;
  droppedAttributesCount: number;
  flags: number;
}

/** The resource a span or log came from, as sent. */
export interface ResourceRecord {
  attributes: Attributes;
  schemaUrl: string | null;
  /** Attributes the sender dropped from the resource (0 when none). */
  droppedAttributesCount: number;
}

/** The instrumentation scope a span or log came from, as sent. */
export interface ScopeRecord {
  name: string;
  version: string | null;
  attributes: Attributes;
  schemaUrl: string | null;
  /** Attributes the sender dropped from the scope (0 when none). */
  droppedAttributesCount: number;
}

export interface SpanRecord {
  traceId: string;
  spanId: string;
  parentSpanId: string | null;
  serviceName: string;
  operation: string;
  kind: "unspecified" | "internal" | "server" | "client" | "producer" | "consumer";
  startTime: string;
  endTime: string;
  startTimeUnixNano: string;
  endTimeUnixNano: string;
  durationNs: number;
  status: { code: "unset" | "ok" | "error"; message: string | null };
  attributes: Attributes;
  events: SpanEventRecord[];
  links: SpanLinkRecord[];
  resource: ResourceRecord;
  scope: ScopeRecord;
  traceState: string | null;
  flags: number;
  droppedAttributesCount: number;
  droppedEventsCount: number;
  droppedLinksCount: number;
}

/**
 * A span in a trace's tree. The tree is a flat list in depth-first order (each span followed
 * by its descendants, children by start time), so its JSON is as shallow for a chain of
 * 20,000 spans as for one span; `depth` is 0 at the top.
 */
export interface SpanTreeNode {
  spanId: string;
  parentSpanId: string | null;
  serviceName: string;
  operation: string;
  kind: SpanRecord["kind"];
  startTime: string;
  durationMs: number;
  status: SpanRecord["status"]["code"];
  depth: number;
  /** True when the span names a parent that is not in the store: it is shown at the top. */
  missingParent: boolean;
}

export interface LogRecord {
  /** Content hash of the record: the same record sent twice is stored once, under one id. */
  logId: string;
  timestamp: string;
  time: string | null;
  observedTime: string | null;
  severityNumber: number;
  severityText: string | null;
  body: JsonValue;
  attributes: Attributes;
  traceId: string | null;
  spanId: string | null;
  serviceName: string;
  resource: ResourceRecord;
  scope: ScopeRecord;
  flags: number;
  eventName: string | null;
  /** Attributes the sender dropped from the record (OTLP's count; 0 when none). */
  droppedAttributesCount: number;
}

export interface PageMeta {
  limit: number;
  lookback: string | null;
  returned: number;
  truncated: boolean;
  nextCursor: string | null;
}

export interface Page<T> {
  data: T[];
  meta: PageMeta;
}

/** Where a collector setting came from (shared/collector-settings.ts). */
export type { SettingSource };

/** `GET /api/health` (schemas/api/health.json). */
/** One forwarding destination in /api/health (daemon/forward/). */
export interface ForwardingStatusRecord {
  url: string;
  protocol: string;
  state: "ok" | "retrying";
  retryingSince: string | null;
  lastError: string | null;
  lagRecords: number;
  lagSeconds: number;
  sent: number;
  retried: number;
  dropped: number;
}

/** One signal's part of the store: how far back it reaches, and what a record costs. */
export interface SignalHistoryRecord {
  /** The oldest record's own time (span start, log record time, metric point time); null when none. */
  oldest: string | null;
  /** Seconds from `oldest` to now (0 for a time in the future). */
  reachSeconds: number | null;
  /**
   * The signal's tables and indexes (records, postings, summaries, rollups) divided by its
   * records, as last measured; null before a measurement with records of it.
   */
  bytesPerRecord: number | null;
}

export interface StoreHistoryRecord {
  spans: SignalHistoryRecord;
  logs: SignalHistoryRecord;
  points: SignalHistoryRecord;
  /** When the bytes were last measured (every ten minutes, or sooner as the store grows); null before. */
  measuredAt: string | null;
}

export interface HealthRecord {
  status: "ok";
  service: "obsd";
  instanceId: string;
  pid: number;
  cwd: string;
  startedAt: string;
  uptimeSeconds: number;
  baseUrl: string;
  /** Every port listened on, with its OTLP protocols (shared/endpoints.ts). */
  endpoints: CollectorEndpoint[];
  database: {
    path: string;
    sizeBytes: number;
    /** Whether writes succeed now; a full disk or a failed writer shows here. */
    writes: { ok: boolean; failingSince: string | null; lastError: string | null; failedSinceOk: number };
    /** What the store holds per signal, so a user can see what the size cap keeps (absent from older collectors). */
    history?: StoreHistoryRecord;
  };
  retention: { maxAge: string; maxAgeMs: number; maxBytes: number };
  /** `services`: those with telemetry in the last `servicesLookback` (15m), as /api/services counts them. */
  counts: {
    services: number;
    servicesLookback: string;
    traces: number;
    spans: number;
    logs: number;
    /** Metric time series and data points stored. */
    series: number;
    points: number;
  };
  latestTelemetryAt: string | null;
  /** Each --forward destination: state, lag and counters (empty without forwarding). */
  forwarding: ForwardingStatusRecord[];
  configuration: Record<string, { value: string | number | boolean; source: SettingSource }>;
  versions: { obs: string; node: string; sqlite: string; schema: number };
}

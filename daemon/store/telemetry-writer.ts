import type Database from "better-sqlite3";
import type { LogBatch, SpanBatch } from "../otlp/records.js";
import { Dictionaries } from "./dictionaries.js";
import { RowIndexInserter } from "./row-index.js";

const STATUS_ERROR = 2;

interface TraceAggregate {
  startNs: bigint;
  endNs: bigint;
  spans: number;
  errors: number;
  rootSpanId: string | null;
  rootStartNs: bigint;
  rootServiceId: number | null;
  rootName: string | null;
  services: Set<number>;
}

/** Counter changes of one transaction, applied once at its end. */
interface CounterDeltas {
  spans: number;
  logs: number;
  traces: number;
  latestNs: bigint;
}

/**
 * Writes decoded batches into the schema. Every method must run inside a transaction the
 * caller owns (the writer worker groups several requests into one commit). Re-sent spans
 * and log records are ignored by their unique keys, so writes are idempotent.
 */
export class TelemetryWriter {
  readonly dictionaries: Dictionaries;
  private readonly spanAttrs: RowIndexInserter;
  private readonly logAttrs: RowIndexInserter;
  private readonly stmt: Record<string, Database.Statement>;
  private deltas: CounterDeltas = { spans: 0, logs: 0, traces: 0, latestNs: 0n };
  private readonly lastSeen = new Map<number, bigint>();

  constructor(private readonly db: Database.Database) {
    this.dictionaries = new Dictionaries(db);
    this.spanAttrs = new RowIndexInserter(db, "span_attrs", "span_row");
    this.logAttrs = new RowIndexInserter(db, "log_attrs", "log_row");
    this.stmt = {
      span: db.prepare(`INSERT INTO spans (trace_id, span_id, parent_span_id, service_id, resource_id, scope_id,
        name, kind, start_ns, end_ns, duration_ns, status_code, status_message, trace_state, flags,
        attributes, events, links, dropped_attributes_count, dropped_events_count, dropped_links_count)
        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
        ON CONFLICT (trace_id, span_id) DO NOTHING`),
      trace: db.prepare(`INSERT INTO traces (trace_id, start_ns, end_ns, span_count, error_count,
        root_span_id, root_service_id, root_name) VALUES (?, ?, ?, ?, ?, ?, ?, ?)
        ON CONFLICT (trace_id) DO UPDATE SET
          start_ns = min(start_ns, excluded.start_ns),
          end_ns = max(end_ns, excluded.end_ns),
          span_count = span_count + excluded.span_count,
          error_count = error_count + excluded.error_count,
          root_service_id = CASE WHEN root_span_id IS NULL THEN excluded.root_service_id ELSE root_service_id END,
          root_name = CASE WHEN root_span_id IS NULL THEN excluded.root_name ELSE root_name END,
          root_span_id = coalesce(root_span_id, excluded.root_span_id)
        RETURNING span_count`),
      traceService: db.prepare(
        "INSERT INTO trace_services (trace_id, service_id) VALUES (?, ?) ON CONFLICT DO NOTHING",
      ),
      log: db.prepare(`INSERT INTO logs (hash, ts_ns, time_ns, observed_ns, severity_number, severity_text,
        body, attributes, trace_id, span_id, flags, event_name, dropped_attributes_count,
        service_id, resource_id, scope_id)
        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
        ON CONFLICT (hash) DO NOTHING`),
      lastSeen: db.prepare("UPDATE services SET last_seen_ns = max(last_seen_ns, ?) WHERE id = ?"),
      counter: db.prepare("UPDATE counters SET value = value + ? WHERE name = ?"),
      latest: db.prepare("UPDATE counters SET value = max(value, ?) WHERE name = 'latest_ns'"),
      serviceCount: db.prepare("UPDATE counters SET value = value + ? WHERE name = 'services'"),
    };
    for (const statement of Object.values(this.stmt)) statement.safeIntegers(false);
  }

  /** Inserts the spans of one request; returns how many were new. */
  writeSpans(batch: SpanBatch, receivedNs: bigint): number {
    const resources = batch.resources.map((r) => this.dictionaries.resource(r, receivedNs));
    const scopes = batch.scopes.map((s) => this.dictionaries.scope(s));
    const traces = new Map<string, TraceAggregate>();
    const indexPairs: number[] = [];
    let inserted = 0;
    for (const span of batch.spans) {
      const resource = resources[span.resource];
      const scopeId = scopes[span.scope];
      if (resource === undefined || scopeId === undefined)
        throw new Error("span refers to a missing resource or scope");
      const duration = span.endNs > span.startNs ? span.endNs - span.startNs : 0n;
      const result = this.stmt.span!.run(
        span.traceId,
        span.spanId,
        span.parentSpanId,
        resource.serviceId,
        resource.id,
        scopeId,
        span.name,
        span.kind,
        span.startNs,
        span.endNs,
        duration,
        span.statusCode,
        span.statusMessage,
        span.traceState,
        span.flags,
        span.attributes,
        span.events,
        span.links,
        span.droppedAttributesCount,
        span.droppedEventsCount,
        span.droppedLinksCount,
      );
      if (result.changes === 0) continue;
      inserted++;
      const rowId = Number(result.lastInsertRowid);
      const indexed = span.indexed;
      for (let i = 0; i < indexed.length; i += 2) {
        indexPairs.push(this.dictionaries.kvId(indexed[i] as string, indexed[i + 1] as string), rowId);
      }
      this.noteSeen(resource.serviceId, span.endNs > span.startNs ? span.endNs : span.startNs);
      let trace = traces.get(span.traceId);
      if (!trace) {
        trace = {
          startNs: span.startNs,
          endNs: span.endNs,
          spans: 0,
          errors: 0,
          rootSpanId: null,
          rootStartNs: 0n,
          rootServiceId: null,
          rootName: null,
          services: new Set(),
        };
        traces.set(span.traceId, trace);
      }
      trace.spans++;
      if (span.statusCode === STATUS_ERROR) trace.errors++;
      if (span.startNs < trace.startNs) trace.startNs = span.startNs;
      if (span.endNs > trace.endNs) trace.endNs = span.endNs;
      trace.services.add(resource.serviceId);
      // The earliest span without a parent is the root.
      if (span.parentSpanId === null && (trace.rootSpanId === null || span.startNs < trace.rootStartNs)) {
        trace.rootSpanId = span.spanId;
        trace.rootStartNs = span.startNs;
        trace.rootServiceId = resource.serviceId;
        trace.rootName = span.name;
      }
    }
    this.spanAttrs.insert(indexPairs);
    for (const [traceId, trace] of traces) {
      const row = this.stmt.trace!.get(
        traceId,
        trace.startNs,
        trace.endNs,
        trace.spans,
        trace.errors,
        trace.rootSpanId,
        trace.rootServiceId,
        trace.rootName,
      ) as { span_count: number };
      if (row.span_count === trace.spans) this.deltas.traces++;
      for (const serviceId of trace.services) this.stmt.traceService!.run(traceId, serviceId);
    }
    this.deltas.spans += inserted;
    return inserted;
  }

  /** Inserts the log records of one request; returns how many were new. */
  writeLogs(batch: LogBatch, receivedNs: bigint): number {
    const resources = batch.resources.map((r) => this.dictionaries.resource(r, receivedNs));
    const scopes = batch.scopes.map((s) => this.dictionaries.scope(s));
    const indexPairs: number[] = [];
    let inserted = 0;
    for (const log of batch.logs) {
      const resource = resources[log.resource];
      const scopeId = scopes[log.scope];
      if (resource === undefined || scopeId === undefined) throw new Error("log refers to a missing resource or scope");
      const tsNs = log.timeNs > 0n ? log.timeNs : log.observedNs > 0n ? log.observedNs : receivedNs;
      const result = this.stmt.log!.run(
        log.hash,
        tsNs,
        log.timeNs,
        log.observedNs,
        log.severityNumber,
        log.severityText,
        log.body,
        log.attributes,
        log.traceId,
        log.spanId,
        log.flags,
        log.eventName,
        log.droppedAttributesCount,
        resource.serviceId,
        resource.id,
        scopeId,
      );
      if (result.changes === 0) continue;
      inserted++;
      const rowId = Number(result.lastInsertRowid);
      const indexed = log.indexed;
      for (let i = 0; i < indexed.length; i += 2) {
        indexPairs.push(this.dictionaries.kvId(indexed[i] as string, indexed[i + 1] as string), rowId);
      }
      this.noteSeen(resource.serviceId, tsNs);
    }
    this.logAttrs.insert(indexPairs);
    this.deltas.logs += inserted;
    return inserted;
  }

  private noteSeen(serviceId: number, ns: bigint): void {
    const previous = this.lastSeen.get(serviceId);
    if (previous === undefined || ns > previous) this.lastSeen.set(serviceId, ns);
    if (ns > this.deltas.latestNs) this.deltas.latestNs = ns;
  }

  /** Applies the counters and last-seen times gathered since the last flush. Call before commit. */
  flushCounters(): void {
    const d = this.deltas;
    if (d.spans) this.stmt.counter!.run(d.spans, "spans");
    if (d.logs) this.stmt.counter!.run(d.logs, "logs");
    if (d.traces) this.stmt.counter!.run(d.traces, "traces");
    const newServices = this.dictionaries.takeNewServices();
    if (newServices) this.stmt.serviceCount!.run(newServices);
    if (d.latestNs > 0n) this.stmt.latest!.run(d.latestNs);
    for (const [serviceId, ns] of this.lastSeen) this.stmt.lastSeen!.run(ns, serviceId);
    this.lastSeen.clear();
    this.deltas = { spans: 0, logs: 0, traces: 0, latestNs: 0n };
  }

  /** Forgets uncommitted state after a rollback. */
  discard(): void {
    this.deltas = { spans: 0, logs: 0, traces: 0, latestNs: 0n };
    this.lastSeen.clear();
    this.dictionaries.reset();
  }

  /** Runs `work` and the counter flush in one transaction. */
  transaction<T>(work: () => T): T {
    try {
      return this.db.transaction(() => {
        const result = work();
        this.flushCounters();
        return result;
      })();
    } catch (error) {
      this.discard();
      throw error;
    }
  }
}

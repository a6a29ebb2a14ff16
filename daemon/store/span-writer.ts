import type Database from "better-sqlite3";
import type { SpanBatch, SpanRecord } from "../otlp/records.js";
import type { ResolvedResource } from "./dictionaries.js";
import { MultiRowStatement } from "./multi-row.js";
import { ParentLinks } from "./parent-links.js";
import { PostingsBuffer } from "./postings.js";
import type { RecordWriter, SharedWriteState } from "./record-writer.js";
import { idBytes, idHex, optionalIdBytes, optionalIdHex } from "./stored-ids.js";
import { spanOfTraceSql, storedDetails } from "./stored-span-fields.js";

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

const SPAN_COLUMNS = [
  "trace_key",
  "span_id",
  "parent_span_id",
  "service_id",
  "resource_id",
  "scope_id",
  "name_id",
  "name",
  "kind",
  "start_ns",
  "duration_ns",
  "status_code",
  "status_message",
  "flags",
  "attributes",
  "details",
];
const TRACE_COLUMNS =
  "(trace_id, start_ns, end_ns, span_count, error_count, root_span_id, root_service_id, root_name_id, root_name)";

/** The traces of a request: each one's key, and the summaries of those stored by it. */
interface TraceKeys {
  keys: Map<string, number>;
  created: Map<string, TraceAggregate>;
}

/**
 * Whether a span without a parent roots its trace before the root found so far: it starts
 * earlier, or at the same time with the lower span id (so the root does not depend on the order
 * spans arrive in).
 */
function rootsBefore(
  span: { startNs: bigint; spanId: string },
  root: { rootStartNs: bigint; rootSpanId: string | null },
) {
  return (
    root.rootSpanId === null ||
    span.startNs < root.rootStartNs ||
    (span.startNs === root.rootStartNs && span.spanId < root.rootSpanId)
  );
}

/** Per trace, the summary of `spans`: start, end, counts, root (the earliest span without a parent) and services. */
function summarizeTraces(
  spans: readonly SpanRecord[],
  resources: readonly ResolvedResource[],
): Map<string, TraceAggregate> {
  const traces = new Map<string, TraceAggregate>();
  for (const span of spans) {
    const serviceId = (resources[span.resource] as ResolvedResource).serviceId;
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
    trace.services.add(serviceId);
    if (span.parentSpanId === null && (trace.rootSpanId === null || rootsBefore(span, trace))) {
      trace.rootSpanId = span.spanId;
      trace.rootStartNs = span.startNs;
      trace.rootServiceId = serviceId;
      trace.rootName = span.name;
    }
  }
  return traces;
}

/**
 * A summary's values, in TRACE_COLUMNS order, ids in their stored form (stored-ids.ts), the root
 * span's name by its id (`nameId`) or, when it has none, as itself.
 */
function summaryValues(traceId: string, trace: TraceAggregate, nameId: (name: string) => number | null): unknown[] {
  const rootNameId = trace.rootName === null ? null : nameId(trace.rootName);
  return [
    idBytes(traceId),
    trace.startNs,
    trace.endNs,
    trace.spans,
    trace.errors,
    optionalIdBytes(trace.rootSpanId),
    trace.rootServiceId,
    rootNameId,
    rootNameId === null ? trace.rootName : null,
  ];
}

/**
 * Writes spans: their rows, their traces' summaries and services, their parent links and
 * their index entries. A span is stored once per trace and span id: one sent again (in this
 * request, or a span of a trace already stored that is found stored) is skipped.
 */
export class SpanWriter implements RecordWriter {
  private readonly spanRows: MultiRowStatement;
  private readonly spanStored: Database.Statement;
  /** A stored trace's root span id (hex) and start, when it has a root. */
  private readonly storedRoot: Database.Statement;
  private readonly traceUpserts: MultiRowStatement;
  private readonly newTraces: MultiRowStatement;
  private readonly storedTraceKeys: Database.Statement;
  private readonly traceServices: MultiRowStatement;
  private readonly postingsInsert: MultiRowStatement;
  private readonly postings: PostingsBuffer;
  private readonly pendingInsert: MultiRowStatement;
  private readonly parentLinks: ParentLinks;

  constructor(
    db: Database.Database,
    private readonly shared: SharedWriteState,
  ) {
    this.parentLinks = new ParentLinks(db);
    // Every row inserted is new (unstored() chose them), so a chunk's rows take consecutive ids
    // ending at its last insert rowid (one writer, AUTOINCREMENT).
    this.spanRows = new MultiRowStatement(
      db,
      `spans (${SPAN_COLUMNS.join(", ")})`,
      SPAN_COLUMNS.length,
      "",
      256,
      false,
    );
    this.storedRoot = db
      .prepare(
        `SELECT ${optionalIdHex("t.root_span_id")} AS spanId, r.start_ns AS startNs FROM traces t
         JOIN spans r ON ${spanOfTraceSql("r", "t.trace_key", "t.root_span_id")} WHERE t.trace_key = ?`,
      )
      .safeIntegers(true);
    this.spanStored = db.prepare(`SELECT 1 FROM spans s WHERE ${spanOfTraceSql("s", "@trace", "@span")}`).pluck();
    this.storedTraceKeys = db
      .prepare(
        `SELECT ${idHex("trace_id")}, trace_key FROM traces WHERE trace_id IN (SELECT unhex(value) FROM json_each(?))`,
      )
      .raw(true);
    this.storedTraceKeys.safeIntegers(false);
    // A new trace's row is made, summarized, before its spans (they refer to its key).
    this.newTraces = new MultiRowStatement(
      db,
      `traces ${TRACE_COLUMNS}`,
      9,
      `RETURNING ${idHex("trace_id")}, trace_key`,
      256,
      true,
    );
    // One upsert per stored trace a request adds spans to, all in one statement: children often
    // arrive after their root, or before it. A root it names replaces the stored one: it was
    // compared with it first (updateTraces).
    this.traceUpserts = new MultiRowStatement(
      db,
      `traces ${TRACE_COLUMNS}`,
      9,
      `ON CONFLICT (trace_id) DO UPDATE SET
        start_ns = min(start_ns, excluded.start_ns),
        end_ns = max(end_ns, excluded.end_ns),
        span_count = span_count + excluded.span_count,
        error_count = error_count + excluded.error_count,
        root_service_id = CASE WHEN excluded.root_span_id IS NULL THEN root_service_id ELSE excluded.root_service_id END,
        root_name_id = CASE WHEN excluded.root_span_id IS NULL THEN root_name_id ELSE excluded.root_name_id END,
        root_name = CASE WHEN excluded.root_span_id IS NULL THEN root_name ELSE excluded.root_name END,
        root_span_id = coalesce(excluded.root_span_id, root_span_id)`,
      256,
      false,
    );
    this.traceServices = new MultiRowStatement(
      db,
      "trace_services (trace_key, service_id)",
      2,
      "ON CONFLICT DO NOTHING",
      512,
      false,
    );
    const postingColumns = "(bucket, key_id, value, first_row, last_row, rows)";
    this.postingsInsert = new MultiRowStatement(db, `span_postings ${postingColumns}`, 6, "", 256, false);
    this.postings = new PostingsBuffer(shared.hashedKeys.of("span_postings"));
    this.pendingInsert = new MultiRowStatement(
      db,
      "span_pending_hashes (bucket, key_id, first_row, entries)",
      4,
      "",
      256,
      false,
    );
  }

  /**
   * The key of each trace `spans` (each span once) belong to. A trace not stored yet gets its
   * row here, already summarized: none of its spans can be stored, so its new spans are all of
   * its spans here.
   */
  private traceKeys(spans: readonly SpanRecord[], resources: ResolvedResource[]): TraceKeys {
    const keys = new Map<string, number>();
    for (const span of spans) keys.set(span.traceId, 0);
    for (const [traceId, key] of this.storedTraceKeys.all(JSON.stringify([...keys.keys()])) as [string, number][]) {
      keys.set(traceId, key);
    }
    const created = summarizeTraces(
      spans.filter((span) => keys.get(span.traceId) === 0),
      resources,
    );
    const rows: unknown[] = [];
    for (const [traceId, trace] of created) rows.push(...summaryValues(traceId, trace, this.nameId));
    for (const [traceId, key] of this.newTraces.run(rows) as [string, number][]) keys.set(traceId, key);
    return { keys, created };
  }

  private readonly nameId = (name: string): number | null => this.shared.dictionaries.spanNameId(name);

  /** The first copy of each span of a request, in its order. */
  private static firstCopies(spans: readonly SpanRecord[]): SpanRecord[] {
    const sent = new Set<string>();
    return spans.filter((span) => {
      const id = span.traceId + span.spanId;
      if (sent.has(id)) return false;
      sent.add(id);
      return true;
    });
  }

  /**
   * The spans of `spans` (each span once) not stored yet. A trace this request created holds
   * none of them; a span of a trace stored before is looked up.
   */
  private unstored(spans: readonly SpanRecord[], traces: TraceKeys): SpanRecord[] {
    return spans.filter(
      (span) =>
        traces.created.has(span.traceId) ||
        this.spanStored.get({ trace: traces.keys.get(span.traceId), span: idBytes(span.spanId) }) === undefined,
    );
  }

  /** Inserts the spans of one request; returns how many were new. */
  write(batch: SpanBatch, receivedNs: bigint): number {
    const { resources, scopes } = this.shared.resolveScopes(batch, receivedNs);
    const sent = SpanWriter.firstCopies(batch.spans);
    const traces = this.traceKeys(sent, resources);
    const newSpans = this.unstored(sent, traces);
    const values: unknown[] = [];
    for (const span of newSpans) {
      const resource = resources[span.resource] as ResolvedResource;
      const nameId = this.nameId(span.name);
      values.push(
        traces.keys.get(span.traceId),
        idBytes(span.spanId),
        optionalIdBytes(span.parentSpanId),
        resource.serviceId,
        resource.id,
        scopes[span.scope],
        nameId,
        nameId === null ? span.name : null,
        span.kind,
        span.startNs,
        span.endNs - span.startNs,
        span.statusCode,
        span.statusMessage,
        span.flags,
        this.shared.dictionaries.codeAttributes(span.attributes, "spans"),
        storedDetails(span),
      );
    }
    const rowIds: number[] = [];
    this.spanRows.runChunks(values, (statement, part) => {
      const rows = part.length / SPAN_COLUMNS.length;
      const last = Number(statement.run(part).lastInsertRowid);
      for (let id = last - rows + 1; id <= last; id++) rowIds.push(id);
    });
    for (const [i, span] of newSpans.entries()) {
      const rowId = rowIds[i] as number;
      const serviceId = (resources[span.resource] as ResolvedResource).serviceId;
      this.shared.post(this.postings, span.indexed, rowId);
      this.shared.noteSeen(serviceId, span.startNs, receivedNs);
      this.shared.rollups.addSpan(
        serviceId,
        span.name,
        span.startNs,
        span.endNs > span.startNs ? Number(span.endNs - span.startNs) : 0,
        span.spanId,
        span.traceId,
      );
    }
    this.updateTraces(newSpans, resources, traces);
    this.parentLinks.link(newSpans, batch.spans, traces.keys);
    this.shared.count("spans", newSpans.length);
    return newSpans.length;
  }

  /** Adds the new spans of stored traces to their summaries, and every new span's service to its trace. */
  private updateTraces(spans: SpanRecord[], resources: ResolvedResource[], traces: TraceKeys): void {
    const upserts: unknown[] = [];
    const services: unknown[] = [];
    const addServices = (traceId: string, trace: TraceAggregate) => {
      for (const serviceId of trace.services) services.push(traces.keys.get(traceId), serviceId);
    };
    // New traces were summarized from exactly these spans when their rows were made.
    for (const [traceId, trace] of traces.created) addServices(traceId, trace);
    const ofStored = spans.filter((span) => !traces.created.has(span.traceId));
    for (const [traceId, trace] of summarizeTraces(ofStored, resources)) {
      // A root sent in an earlier request may start before this one's: the earlier root stays.
      if (trace.rootSpanId !== null) {
        const stored = this.storedRoot.get(traces.keys.get(traceId)) as { spanId: string; startNs: bigint } | undefined;
        if (
          stored !== undefined &&
          !rootsBefore(
            { startNs: trace.rootStartNs, spanId: trace.rootSpanId },
            { rootStartNs: stored.startNs, rootSpanId: stored.spanId },
          )
        ) {
          trace.rootSpanId = null;
          trace.rootServiceId = null;
          trace.rootName = null;
        }
      }
      upserts.push(...summaryValues(traceId, trace, this.nameId));
      addServices(traceId, trace);
    }
    this.traceUpserts.run(upserts);
    this.traceServices.run(services);
    this.shared.count("traces", traces.created.size);
  }

  flush(): void {
    this.postings.flush(this.postingsInsert, this.pendingInsert);
  }

  clear(): void {
    this.postings.clear();
  }
}

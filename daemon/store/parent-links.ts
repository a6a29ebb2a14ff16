import type Database from "better-sqlite3";
import type { SpanRecord } from "../otlp/records.js";
import { idHex } from "./stored-ids.js";
import { spanOfTraceSql } from "./stored-span-fields.js";

/**
 * Keeps `orphan_spans`: the stored spans whose parent is not stored. A span enters it when it
 * arrives before (or without) its parent and leaves it when the parent arrives, so the audit
 * reads the few orphans instead of looking up every span's parent. Parents are found in the
 * same request first; only the rest cost a lookup.
 */
export class ParentLinks {
  private readonly stmt: Record<"parentStored" | "addOrphan" | "tracesWithOrphans" | "adopt", Database.Statement>;

  constructor(db: Database.Database) {
    this.stmt = {
      // Ids arrive as the decoders' hex and are stored as bytes (stored-ids.ts).
      parentStored: db.prepare(`SELECT 1 FROM spans s WHERE ${spanOfTraceSql("s", "@trace", "unhex(@span)")}`).pluck(),
      addOrphan: db.prepare(
        "INSERT OR IGNORE INTO orphan_spans (trace_id, span_id, parent_span_id, start_ns) VALUES (unhex(?), unhex(?), unhex(?), ?)",
      ),
      tracesWithOrphans: db
        .prepare(
          `SELECT DISTINCT ${idHex("trace_id")} FROM orphan_spans WHERE trace_id IN (SELECT unhex(value) FROM json_each(?))`,
        )
        .pluck(),
      adopt: db.prepare("DELETE FROM orphan_spans WHERE trace_id = unhex(?) AND parent_span_id = unhex(?)"),
    };
  }

  /**
   * Records the links of `added`, the spans this request stored. `sent` is everything the
   * request carried (all of it is stored now, some from earlier requests); `traceKeys` the
   * stored key of each of their traces.
   */
  link(added: readonly SpanRecord[], sent: readonly SpanRecord[], traceKeys: ReadonlyMap<string, number>): void {
    if (added.length === 0) return;
    const inRequest = new Set<string>();
    for (const span of sent) inRequest.add(span.traceId + span.spanId);
    const traces = new Set<string>();
    for (const span of added) {
      traces.add(span.traceId);
      const parent = span.parentSpanId;
      if (parent === null || inRequest.has(span.traceId + parent)) continue;
      if (this.stmt.parentStored.get({ trace: traceKeys.get(span.traceId), span: parent }) === undefined) {
        this.stmt.addOrphan.run(span.traceId, span.spanId, parent, span.startNs);
      }
    }
    const waiting = this.stmt.tracesWithOrphans.all(JSON.stringify([...traces])) as string[];
    if (waiting.length === 0) return;
    const waitingTraces = new Set(waiting);
    for (const span of added) {
      if (waitingTraces.has(span.traceId)) this.stmt.adopt.run(span.traceId, span.spanId);
    }
  }
}

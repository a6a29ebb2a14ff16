import type Database from "better-sqlite3";
import type { LogBatch } from "../otlp/records.js";
import type { ResolvedResource } from "./dictionaries.js";
import { logTimestampNs } from "./kept-records.js";
import { MultiRowStatement } from "./multi-row.js";
import { NewRowInsert } from "./new-rows.js";
import { PostingsBuffer } from "./postings.js";
import type { RecordWriter, SharedWriteState } from "./record-writer.js";
import { optionalIdBytes } from "./stored-ids.js";
import { storedObservedOffset, storedSeverityText, storedTime } from "./stored-log-fields.js";

const LOG_COLUMNS = [
  "hash",
  "ts_ns",
  "time_ns",
  "observed_offset_ns",
  "severity_number",
  "severity_text",
  "body",
  "attributes",
  "trace_id",
  "span_id",
  "flags",
  "event_name",
  "dropped_attributes_count",
  "service_id",
  "resource_id",
  "scope_id",
];

/**
 * Writes log records: their rows and their index entries. A record sent twice is stored once
 * (its unique key is its time and content hash; for a record with no time, its hash).
 */
export class LogWriter implements RecordWriter {
  private readonly logRows: NewRowInsert;
  private readonly postingsInsert: MultiRowStatement;
  private readonly postings: PostingsBuffer;
  private readonly pendingInsert: MultiRowStatement;

  constructor(
    db: Database.Database,
    private readonly shared: SharedWriteState,
  ) {
    // No conflict target: two unique indexes keep a record once, one by time and part of the
    // hash, one by the hash of records with no time (migrations/v018-log-times.ts).
    this.logRows = new NewRowInsert(db, "logs", LOG_COLUMNS, 1, "", 256);
    const postingColumns = "(bucket, key_id, value, first_row, last_row, rows)";
    this.postingsInsert = new MultiRowStatement(db, `log_postings ${postingColumns}`, 6, "", 256, false);
    this.postings = new PostingsBuffer(shared.hashedKeys.of("log_postings"));
    this.pendingInsert = new MultiRowStatement(
      db,
      "log_pending_hashes (bucket, key_id, first_row, entries)",
      4,
      "",
      256,
      false,
    );
  }

  /** Inserts the log records of one request; returns how many were new. */
  write(batch: LogBatch, receivedNs: bigint): number {
    const { resources, scopes } = this.shared.resolveScopes(batch, receivedNs);
    const values: unknown[] = [];
    const timestamps: bigint[] = [];
    for (const log of batch.logs) {
      const resource = resources[log.resource] as ResolvedResource;
      const tsNs = logTimestampNs(log, receivedNs);
      timestamps.push(tsNs);
      values.push(
        log.hash,
        tsNs,
        storedTime(log.timeNs),
        storedObservedOffset(log.observedNs, tsNs),
        log.severityNumber,
        storedSeverityText(log.severityNumber, log.severityText),
        log.body,
        this.shared.dictionaries.codeAttributes(log.attributes, "logs"),
        optionalIdBytes(log.traceId),
        optionalIdBytes(log.spanId),
        log.flags,
        log.eventName,
        log.droppedAttributesCount,
        resource.serviceId,
        resource.id,
        scopes[log.scope],
      );
    }
    const rowIds = this.logRows.run(values);
    let added = 0;
    batch.logs.forEach((log, i) => {
      const rowId = rowIds[i] as number;
      if (rowId === 0) return;
      added++;
      this.shared.post(this.postings, log.indexed, rowId);
      const serviceId = (resources[log.resource] as ResolvedResource).serviceId;
      this.shared.rollups.addLog(serviceId, timestamps[i] as bigint, log.severityNumber);
      this.shared.noteSeen(serviceId, timestamps[i] as bigint, receivedNs);
    });
    this.shared.count("logs", added);
    return added;
  }

  flush(): void {
    this.postings.flush(this.postingsInsert, this.pendingInsert);
  }

  clear(): void {
    this.postings.clear();
  }
}

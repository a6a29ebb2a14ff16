import type Database from "better-sqlite3";
import { addSpan, emptyOperationRollup, mergeStored, type OperationRollup } from "../store/operation-rollup.js";
import { TRIMMED_THROUGH } from "../store/retention.js";
import { ERROR_SEVERITY, WARN_SEVERITY } from "../store/rollup-buffer.js";
import { planWindow, type WindowPlan } from "../store/rollup-slots.js";
import { idHex } from "../store/stored-ids.js";
import { SPAN_DURATION } from "./span-sql.js";

export interface OperationWindow {
  serviceId: number;
  name: string;
  rollup: OperationRollup;
}

export interface ServiceSpanWindow {
  spans: number;
  newestNs: bigint;
}

export interface ServiceLogWindow {
  logs: number;
  warnings: number;
  errors: number;
  newestNs: bigint;
}

type SpanRow = [bigint, string, bigint, bigint, string, string];
type SpanRollupRow = [bigint, string, bigint, bigint, bigint, Uint8Array, Uint8Array];
type ServiceSpanRow = [bigint, bigint, bigint | null];
type LogRow = [bigint, bigint, bigint, bigint, bigint | null];

/**
 * Reads a time window (from, to] from the rollup tables (rollup-slots.ts), with the raw rows
 * only at its edges. Every read is ordered on keys, so equal stores give equal results.
 */
export class RollupWindowReader {
  private readonly stmt: Record<string, Database.Statement>;

  constructor(
    db: Database.Database,
    private readonly serviceId: bigint | null,
  ) {
    const ofService = serviceId === null ? "" : "AND service_id = @service";
    const ofSpanService = serviceId === null ? "" : "AND s.service_id = @service";
    this.stmt = {
      oldestSpan: db.prepare("SELECT start_ns FROM spans ORDER BY start_ns LIMIT 1").pluck(),
      oldestLog: db.prepare("SELECT ts_ns FROM logs ORDER BY ts_ns LIMIT 1").pluck(),
      trimmedThrough: db.prepare("SELECT value FROM counters WHERE name = ?").pluck(),
      spans: db
        .prepare(
          `SELECT s.service_id, coalesce(sn.name, s.name), s.start_ns, ${SPAN_DURATION}, ${idHex("s.span_id")}, ${idHex("t.trace_id")}
           FROM spans s JOIN traces t ON t.trace_key = s.trace_key LEFT JOIN span_names sn ON sn.id = s.name_id
           WHERE s.start_ns >= @from AND s.start_ns < @to ${ofSpanService} ORDER BY s.start_ns, s.id`,
        )
        .raw(),
      spanSlots: db
        .prepare(
          `SELECT service_id, name, spans, newest_ns, max_ns, histogram, slowest FROM span_rollups
           WHERE width = @width AND slot >= @from AND slot < @to ${ofService}`,
        )
        .raw(),
      serviceSpans: db
        .prepare(
          `SELECT service_id, count(*), max(start_ns) FROM spans
           WHERE start_ns >= @from AND start_ns < @to ${ofService} GROUP BY service_id`,
        )
        .raw(),
      serviceSpanSlots: db
        .prepare(
          `SELECT service_id, sum(spans), max(newest_ns) FROM span_rollups
           WHERE width = @width AND slot >= @from AND slot < @to ${ofService} GROUP BY service_id`,
        )
        .raw(),
      logs: db
        .prepare(
          `SELECT service_id, count(*), sum(severity_number >= ${WARN_SEVERITY} AND severity_number < ${ERROR_SEVERITY}),
             sum(severity_number >= ${ERROR_SEVERITY}), max(ts_ns)
           FROM logs WHERE ts_ns >= @from AND ts_ns < @to ${ofService} GROUP BY service_id`,
        )
        .raw(),
      logSlots: db
        .prepare(
          `SELECT service_id, sum(logs), sum(warnings), sum(errors), max(newest_ns) FROM log_rollups
           WHERE width = @width AND slot >= @from AND slot < @to ${ofService} GROUP BY service_id`,
        )
        .raw(),
    };
  }

  private bind(range: { from: bigint; to: bigint }, width?: bigint) {
    return {
      from: range.from,
      to: range.to,
      ...(width === undefined ? {} : { width }),
      ...(this.serviceId === null ? {} : { service: this.serviceId }),
    };
  }

  /** The plan for (from, to]; null when the table is empty. */
  private plan(from: bigint, to: bigint, oldest: Database.Statement, trimmed: string): WindowPlan | null {
    const oldestNs = oldest.get() as bigint | undefined;
    if (oldestNs === undefined) return null;
    // A slot lost nothing to retention if it starts after every row retention deleted (size
    // trimming goes by storage order, so that can be after rows still stored). A store that
    // trimmed before that counter existed had it set to its oldest row then (migration 10).
    const trimmedNs = (this.stmt.trimmedThrough!.get(trimmed) as bigint | undefined) ?? 0n;
    return planWindow(from + 1n, to + 1n, trimmedNs + 1n);
  }

  /**
   * Per operation (service id and span name): count, newest start, histogram and slowest
   * spans. At most `maxOperations`; `truncated` is set when more existed.
   */
  operations(from: bigint, to: bigint, maxOperations: number): { operations: OperationWindow[]; truncated: boolean } {
    const plan = this.plan(from, to, this.stmt.oldestSpan!, TRIMMED_THROUGH.spans);
    const byKey = new Map<string, OperationWindow>();
    let truncated = false;
    const entry = (serviceId: bigint, name: string): OperationRollup | null => {
      const key = `${serviceId}\u0000${name}`;
      let found = byKey.get(key);
      if (!found) {
        if (byKey.size >= maxOperations) {
          truncated = true;
          return null;
        }
        found = { serviceId: Number(serviceId), name, rollup: emptyOperationRollup() };
        byKey.set(key, found);
      }
      return found.rollup;
    };
    for (const range of plan?.raw ?? []) {
      for (const [serviceId, name, startNs, durationNs, spanId, traceId] of this.stmt.spans!.all(
        this.bind(range),
      ) as SpanRow[]) {
        const rollup = entry(serviceId, name);
        if (rollup) addSpan(rollup, startNs, Number(durationNs), spanId, traceId);
      }
    }
    for (const range of plan?.slots ?? []) {
      for (const [serviceId, name, spans, newestNs, maxNs, histogram, slowest] of this.stmt.spanSlots!.all(
        this.bind(range, range.width),
      ) as SpanRollupRow[]) {
        const rollup = entry(serviceId, name);
        if (rollup) mergeStored(rollup, { spans, newest_ns: newestNs, max_ns: maxNs, histogram, slowest });
      }
    }
    return { operations: [...byKey.values()], truncated };
  }

  /**
   * Per service id: spans and the newest start. Every service, however many operations it
   * or another has: `operations` is bounded, and a service it left out is not silent.
   */
  services(from: bigint, to: bigint): Map<number, ServiceSpanWindow> {
    const plan = this.plan(from, to, this.stmt.oldestSpan!, TRIMMED_THROUGH.spans);
    const byService = new Map<number, ServiceSpanWindow>();
    const add = ([serviceId, spans, newest]: ServiceSpanRow) => {
      const id = Number(serviceId);
      const current = byService.get(id) ?? { spans: 0, newestNs: 0n };
      current.spans += Number(spans);
      if (newest !== null && newest > current.newestNs) current.newestNs = newest;
      byService.set(id, current);
    };
    for (const range of plan?.raw ?? []) {
      for (const row of this.stmt.serviceSpans!.all(this.bind(range)) as ServiceSpanRow[]) add(row);
    }
    for (const range of plan?.slots ?? []) {
      for (const row of this.stmt.serviceSpanSlots!.all(this.bind(range, range.width)) as ServiceSpanRow[]) add(row);
    }
    return byService;
  }

  /** Per service id: log records, warnings (13–16), errors (17+) and the newest timestamp. */
  logs(from: bigint, to: bigint): Map<number, ServiceLogWindow> {
    const plan = this.plan(from, to, this.stmt.oldestLog!, TRIMMED_THROUGH.logs);
    const byService = new Map<number, ServiceLogWindow>();
    const add = ([serviceId, logs, warnings, errors, newest]: LogRow) => {
      const id = Number(serviceId);
      const current = byService.get(id) ?? { logs: 0, warnings: 0, errors: 0, newestNs: 0n };
      current.logs += Number(logs);
      current.warnings += Number(warnings ?? 0);
      current.errors += Number(errors ?? 0);
      if (newest !== null && newest > current.newestNs) current.newestNs = newest;
      byService.set(id, current);
    };
    for (const range of plan?.raw ?? []) for (const row of this.stmt.logs!.all(this.bind(range)) as LogRow[]) add(row);
    for (const range of plan?.slots ?? []) {
      for (const row of this.stmt.logSlots!.all(this.bind(range, range.width)) as LogRow[]) add(row);
    }
    return byService;
  }
}

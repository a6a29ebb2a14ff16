/**
 * Metric rows written straight into a store file with SQL, as the stored layout states them
 * (migrations/v008-metrics.ts), for reader tests that do not depend on the writer.
 */
import { createHash } from "node:crypto";
import type Database from "better-sqlite3";
import { type RowExemplar, rowExemplarsText } from "../../daemon/store/rollup-exemplars.js";

export interface MetricRowSpec {
  name: string;
  kind: "gauge" | "sum" | "histogram" | "exponential_histogram" | "summary";
  unit?: string;
  temporality?: number;
  monotonic?: boolean;
  description?: string;
}

export interface PointRowSpec {
  timeNs: bigint;
  startNs?: bigint;
  value?: number | null;
  count?: number | null;
  sum?: number | null;
  min?: number | null;
  max?: number | null;
  detail?: unknown;
  exemplars?: unknown[] | null;
}

export interface RollupRowSpec {
  widthS: number;
  slot: number;
  points: number;
  firstNs: bigint;
  lastNs: bigint;
  valueSum?: number | null;
  valueMin?: number | null;
  valueMax?: number | null;
  valueLast?: number | null;
  increase?: number | null;
  sumIncrease?: number | null;
  resets?: number;
  buckets?: unknown;
  /** Trace ids alone, as builds before exemplar times wrote them, or with their points' times. */
  exemplars?: string[] | RowExemplar[] | null;
}

function idOf(db: Database.Database, select: string, insert: string, key: unknown, ...more: unknown[]): number {
  const found = db.prepare(select).pluck().get(key) as bigint | undefined;
  if (found !== undefined) return Number(found);
  return Number(db.prepare(insert).run(key, ...more).lastInsertRowid);
}

function storedExemplars(exemplars: string[] | RowExemplar[]): string | null {
  const ids = exemplars.filter((exemplar): exemplar is string => typeof exemplar === "string");
  return ids.length === exemplars.length ? JSON.stringify(ids) : rowExemplarsText(exemplars as RowExemplar[]);
}

export function insertMetric(db: Database.Database, spec: MetricRowSpec): number {
  return Number(
    db
      .prepare(
        "INSERT INTO metrics (name, kind, unit, temporality, monotonic, description, metadata) VALUES (?, ?, ?, ?, ?, ?, NULL)",
      )
      .run(spec.name, spec.kind, spec.unit ?? "", spec.temporality ?? 0, spec.monotonic ? 1 : 0, spec.description ?? "")
      .lastInsertRowid,
  );
}

/** A series of `metricId` for a service, with point attributes (indexed in metric_series_attributes). */
export function insertSeries(
  db: Database.Database,
  metricId: number,
  service: string,
  attributes: Record<string, string>,
  firstNs: bigint,
  lastNs: bigint,
  resourceAttributes: Record<string, string> = {},
): number {
  const serviceId = idOf(
    db,
    "SELECT id FROM services WHERE name = ?",
    "INSERT INTO services (name, first_seen_ns, last_seen_ns) VALUES (?, 0, 0)",
    service,
  );
  const resource = JSON.stringify({ "service.name": service, ...resourceAttributes });
  const resourceId = idOf(
    db,
    "SELECT id FROM resources WHERE hash = ?",
    "INSERT INTO resources (hash, service_id, attributes, dropped_attributes_count, schema_url) VALUES (?, ?, ?, 0, NULL)",
    resource,
    serviceId,
    resource,
  );
  const scopeId = idOf(
    db,
    "SELECT id FROM scopes WHERE hash = ?",
    "INSERT INTO scopes (hash, name, version, attributes, dropped_attributes_count, schema_url) VALUES (?, 'm', NULL, '{}', 0, NULL)",
    "m",
  );
  const json = JSON.stringify(attributes);
  const hash = createHash("sha1").update(json).digest();
  const seriesId = Number(
    db
      .prepare(
        `INSERT INTO metric_series (metric_id, service_id, resource_id, scope_id, attr_hash, attributes, first_ns, first_whole)
        VALUES (?, ?, ?, ?, ?, ?, ?, 1)`,
      )
      .run(metricId, serviceId, resourceId, scopeId, hash, json, firstNs).lastInsertRowid,
  );
  db.prepare("INSERT INTO metric_series_last (series_id, last_ns) VALUES (?, ?)").run(seriesId, lastNs);
  for (const [key, value] of Object.entries(attributes)) {
    const keyId = idOf(db, "SELECT id FROM attr_keys WHERE key = ?", "INSERT INTO attr_keys (key) VALUES (?)", key);
    db.prepare("INSERT INTO metric_series_attributes (metric_id, key_id, value, series_id) VALUES (?, ?, ?, ?)").run(
      metricId,
      keyId,
      value,
      seriesId,
    );
  }
  return seriesId;
}

export function insertPoints(db: Database.Database, seriesId: number, points: PointRowSpec[]): void {
  const insert = db.prepare(
    `INSERT INTO metric_points (series_id, time_ns, start_ns, flags, value, count, sum, min, max, detail, exemplars)
      VALUES (?, ?, ?, 0, ?, ?, ?, ?, ?, ?, ?)`,
  );
  for (const p of points) {
    insert.run(
      seriesId,
      p.timeNs,
      p.startNs ?? 0n,
      p.value ?? null,
      p.count ?? null,
      p.sum ?? null,
      p.min ?? null,
      p.max ?? null,
      p.detail === undefined ? null : JSON.stringify(p.detail),
      p.exemplars ? JSON.stringify(p.exemplars) : null,
    );
  }
}

export function insertRollups(db: Database.Database, metricId: number, seriesId: number, rows: RollupRowSpec[]): void {
  const insert = db.prepare(
    `INSERT INTO metric_rollups (metric_id, width_s, slot, series_id, points, first_ns, last_ns, value_sum, value_min,
      value_max, value_last, increase, sum_increase, resets, buckets, exemplars)
      VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  for (const r of rows) {
    insert.run(
      metricId,
      r.widthS,
      r.slot,
      seriesId,
      r.points,
      r.firstNs,
      r.lastNs,
      r.valueSum ?? null,
      r.valueMin ?? null,
      r.valueMax ?? null,
      r.valueLast ?? null,
      r.increase ?? null,
      r.sumIncrease ?? null,
      r.resets ?? 0,
      r.buckets === undefined ? null : JSON.stringify(r.buckets),
      r.exemplars ? storedExemplars(r.exemplars) : null,
    );
  }
}

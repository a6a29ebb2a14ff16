/**
 * Metric rows written straight into a store by SQL, per the schema's contract (v008-metrics.ts):
 * for reader tests that must not depend on the metric writer. One gauge per service and
 * attribute set; the points are the given times.
 */
import { createHash } from "node:crypto";
import type Database from "better-sqlite3";

function idOf(db: Database.Database, select: string, insert: string, ...values: unknown[]): bigint {
  const found = db
    .prepare(select)
    .pluck()
    .get(...values) as bigint | undefined;
  if (found !== undefined) return found;
  return BigInt(db.prepare(insert).run(...values).lastInsertRowid);
}

export interface GaugeSeries {
  service: string;
  name: string;
  attributes?: Record<string, string>;
  /** Point times, in nanoseconds. */
  timesNs: bigint[];
  /** Times of points that carry NO_RECORDED_VALUE (flags 1, no value): each must be in `timesNs`. */
  unrecordedNs?: bigint[];
}

/** Writes the series and its points; returns the series id. */
export function writeGaugeSeries(db: Database.Database, series: GaugeSeries): bigint {
  const times = [...series.timesNs].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  const first = times[0] ?? 0n;
  const last = times.at(-1) ?? 0n;
  const serviceId = idOf(
    db,
    "SELECT id FROM services WHERE name = ?",
    `INSERT INTO services (name, first_seen_ns, last_seen_ns) VALUES (?, ${first}, ${last})`,
    series.service,
  );
  const resource = JSON.stringify({ "service.name": series.service });
  const resourceId = idOf(
    db,
    "SELECT id FROM resources WHERE hash = ?",
    `INSERT INTO resources (hash, service_id, attributes, dropped_attributes_count) VALUES (?, ${serviceId}, '${resource}', 0)`,
    `test-resource-${series.service}`,
  );
  const scopeId = idOf(
    db,
    "SELECT id FROM scopes WHERE hash = ?",
    "INSERT INTO scopes (hash, name, attributes, dropped_attributes_count) VALUES (?, 'test-meter', '{}', 0)",
    "test-scope",
  );
  const metricId = idOf(
    db,
    "SELECT id FROM metrics WHERE name = ? AND kind = 'gauge'",
    "INSERT INTO metrics (name, kind, unit, temporality, monotonic, description) VALUES (?, 'gauge', '1', 0, 0, '')",
    series.name,
  );
  const attributes = JSON.stringify(series.attributes ?? {});
  const seriesId = BigInt(
    db
      .prepare(
        `INSERT INTO metric_series (metric_id, service_id, resource_id, scope_id, attr_hash, attributes, first_ns, first_whole)
         VALUES (?, ?, ?, ?, ?, ?, ?, 1)`,
      )
      .run(metricId, serviceId, resourceId, scopeId, createHash("sha1").update(attributes).digest(), attributes, first)
      .lastInsertRowid,
  );
  db.prepare("INSERT INTO metric_series_last (series_id, last_ns) VALUES (?, ?)").run(seriesId, last);
  const point = db.prepare(
    "INSERT INTO metric_points (series_id, time_ns, start_ns, flags, value) VALUES (?, ?, 0, ?, ?)",
  );
  const unrecorded = new Set(series.unrecordedNs ?? []);
  for (const [i, timeNs] of times.entries()) {
    if (unrecorded.has(timeNs)) point.run(seriesId, timeNs, 1, null);
    else point.run(seriesId, timeNs, 0, i);
  }
  return seriesId;
}

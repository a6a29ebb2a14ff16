import { createHash } from "node:crypto";
import type Database from "better-sqlite3";
import { describeAttributes } from "../otlp/any-value.js";
import { identityKey } from "../otlp/identity-key.js";
import type { PlainObject } from "../otlp/protobuf-any-value.js";
import type { MetricPointRecord } from "../otlp/records.js";
import type { ResolvedResource } from "./dictionaries.js";
import { firstCountsWhole, type SeriesKind } from "./metric-rollup.js";
import type { SharedWriteState } from "./record-writer.js";

/** A series as the writer knows it. */
export interface ResolvedSeries {
  id: number;
  metricId: number;
  kind: SeriesKind;
  /** Created by this call (only on the value `resolve` returns). */
  created?: boolean;
}

interface KnownMetric {
  id: number;
  description: string;
  metadata: string | null;
}

/** Whether two points have the same metric identity, description and metadata. */
function sameMetric(a: MetricPointRecord, b: MetricPointRecord): boolean {
  return (
    a.name === b.name &&
    a.kind === b.kind &&
    a.unit === b.unit &&
    a.temporality === b.temporality &&
    a.monotonic === b.monotonic &&
    a.description === b.description &&
    a.metadata === b.metadata
  );
}

const groupKey = (metricId: number, resourceId: number, scopeId: number): string =>
  `${metricId}:${resourceId}:${scopeId}`;

/**
 * A series' attribute index entries, from its attributes' JSON: the decoder's own entries
 * (`describeAttributes` of the same object, which the JSON gives back exactly: numbers
 * past 2^53 and non-finite doubles are already text in it). Points do not carry them across
 * threads (packed-metric-points.ts), and only a new series needs them.
 */
export function indexEntriesOf(attributes: string): string[] {
  return describeAttributes(JSON.parse(attributes) as PlainObject).indexed;
}

/** Identities remembered; past this the memo starts over (a miss costs one indexed lookup). */
const MEMO_CAPACITY = 200_000;

/**
 * Resolves metric identities and series to their ids, creating them when new: each series is
 * looked up once per process (an in-memory memo), so a point costs a map lookup. A new
 * series gets its attribute rows (`metric_series_attributes`, keys through the shared
 * attribute key dictionary, values as the index entries give them).
 */
export class MetricSeriesResolver {
  private metrics = new Map<string, KnownMetric>();
  /** Series by (metric, resource, scope), then by attributes text: no long key is built per point. */
  private series = new Map<string, Map<string, ResolvedSeries>>();
  private seriesCount = 0;
  /**
   * The previous point's metric and (metric, resource, scope) group: a request's points come
   * metric by metric, so most points skip building the lookup keys.
   */
  private lastMetric: { point: MetricPointRecord; id: number } | null = null;
  private lastGroup: {
    metricId: number;
    resourceId: number;
    scopeId: number;
    series: Map<string, ResolvedSeries>;
  } | null = null;
  private readonly stmt: Record<
    | "metricSelect"
    | "metricInsert"
    | "metricUpdate"
    | "seriesInsert"
    | "lastInsert"
    | "seriesSelect"
    | "attributeInsert",
    Database.Statement
  >;
  /** Series created since the last `takeCreated()`. */
  private createdCount = 0;

  constructor(
    db: Database.Database,
    private readonly shared: SharedWriteState,
  ) {
    this.stmt = {
      // Looked up before inserting: an insert that meets a conflict still uses up an
      // AUTOINCREMENT id, and a memo that starts over would use up one per series.
      metricSelect: db.prepare(
        "SELECT id, description, metadata FROM metrics WHERE name = ? AND kind = ? AND unit = ? AND temporality = ? AND monotonic = ?",
      ),
      metricInsert: db.prepare(
        `INSERT INTO metrics (name, kind, unit, temporality, monotonic, description, metadata) VALUES (?, ?, ?, ?, ?, ?, ?)
         RETURNING id`,
      ),
      metricUpdate: db.prepare("UPDATE metrics SET description = ?, metadata = ? WHERE id = ?"),
      seriesInsert: db.prepare(
        `INSERT INTO metric_series (metric_id, service_id, resource_id, scope_id, attr_hash, attributes, first_ns, first_whole)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?) RETURNING id`,
      ),
      lastInsert: db.prepare("INSERT INTO metric_series_last (series_id, last_ns) VALUES (?, ?)"),
      seriesSelect: db.prepare(
        "SELECT id, first_whole FROM metric_series WHERE metric_id = ? AND resource_id = ? AND scope_id = ? AND attr_hash = ?",
      ),
      attributeInsert: db.prepare(
        "INSERT OR IGNORE INTO metric_series_attributes (metric_id, key_id, value, series_id) VALUES (?, ?, ?, ?)",
      ),
    };
    for (const statement of Object.values(this.stmt)) statement.safeIntegers(false);
  }

  /** The metric of a point, its latest description and metadata kept. */
  private metricOf(point: MetricPointRecord): number {
    const last = this.lastMetric;
    if (last !== null && sameMetric(last.point, point)) return last.id;
    const id = this.lookUpMetric(point);
    this.lastMetric = { point, id };
    return id;
  }

  private lookUpMetric(point: MetricPointRecord): number {
    const key = identityKey([point.name, point.kind, point.unit, point.temporality, point.monotonic ? 1 : 0]);
    let known = this.metrics.get(key);
    if (known === undefined) {
      const identity = [point.name, point.kind, point.unit, point.temporality, point.monotonic ? 1 : 0];
      const stored = this.stmt.metricSelect.get(...identity) as KnownMetric | undefined;
      known = stored ?? {
        id: (this.stmt.metricInsert.get(...identity, point.description, point.metadata) as { id: number }).id,
        description: point.description,
        metadata: point.metadata,
      };
      if (this.metrics.size >= MEMO_CAPACITY) this.metrics.clear();
      this.metrics.set(key, known);
    }
    if (known.description !== point.description || known.metadata !== point.metadata) {
      this.stmt.metricUpdate.run(point.description, point.metadata, known.id);
      known.description = point.description;
      known.metadata = point.metadata;
    }
    return known.id;
  }

  /** The series of a point, created (with its attribute rows) when new. */
  resolve(point: MetricPointRecord, resource: ResolvedResource, scopeId: number): ResolvedSeries {
    const metricId = this.metricOf(point);
    const group = this.lastGroup;
    let byAttributes =
      group !== null && group.metricId === metricId && group.resourceId === resource.id && group.scopeId === scopeId
        ? group.series
        : undefined;
    if (byAttributes === undefined) {
      byAttributes = this.series.get(groupKey(metricId, resource.id, scopeId));
      if (byAttributes !== undefined) {
        this.lastGroup = { metricId, resourceId: resource.id, scopeId, series: byAttributes };
      }
    }
    const known = byAttributes?.get(point.attributes);
    if (known !== undefined) return known;
    const hash = createHash("sha1").update(point.attributes).digest();
    // Looked up before inserting, as metrics are (lookUpMetric).
    const stored = this.stmt.seriesSelect.get(metricId, resource.id, scopeId, hash) as
      | { id: number; first_whole: number }
      | undefined;
    let id: number;
    let firstWhole: boolean;
    let created = false;
    if (stored !== undefined) {
      id = stored.id;
      firstWhole = stored.first_whole === 1;
    } else {
      // Decided once, by the point that creates the series, so every fold and query agrees.
      firstWhole = firstCountsWhole(point, this.shared.collectorStartNs);
      id = (
        this.stmt.seriesInsert.get(
          metricId,
          resource.serviceId,
          resource.id,
          scopeId,
          hash,
          point.attributes,
          point.timeNs,
          firstWhole ? 1 : 0,
        ) as { id: number }
      ).id;
      this.stmt.lastInsert.run(id, point.timeNs);
      created = true;
      this.createdCount++;
      const indexed = indexEntriesOf(point.attributes);
      for (let i = 0; i < indexed.length; i += 2) {
        const keyId = this.shared.dictionaries.keyId(indexed[i] as string);
        this.stmt.attributeInsert.run(metricId, keyId, indexed[i + 1] as string, id);
      }
    }
    const kind = { kind: point.kind, temporality: point.temporality, monotonic: point.monotonic, firstWhole };
    const resolved = { id, metricId, kind };
    if (this.seriesCount >= MEMO_CAPACITY) {
      this.series.clear();
      this.seriesCount = 0;
      this.lastGroup = null;
      byAttributes = undefined;
    }
    if (byAttributes === undefined) {
      byAttributes = new Map();
      this.series.set(groupKey(metricId, resource.id, scopeId), byAttributes);
    }
    byAttributes.set(point.attributes, resolved);
    this.seriesCount++;
    return created ? { ...resolved, created: true } : resolved;
  }

  takeCreated(): number {
    const count = this.createdCount;
    this.createdCount = 0;
    return count;
  }

  /** Forgets every id (after a rollback, or once retention deleted series or metrics). */
  forget(): void {
    this.metrics = new Map();
    this.series = new Map();
    this.seriesCount = 0;
    this.lastMetric = null;
    this.lastGroup = null;
    this.createdCount = 0;
  }
}

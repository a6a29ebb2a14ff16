import type Database from "better-sqlite3";
import { everHashedKeys, HASHED_ENTRY_BYTES, registerHashedPostingFunctions } from "../store/hashed-postings.js";
import { registerPostingFunctions } from "../store/posting-rows.js";
import { bucketedPostingsFrom, POSTING_BUCKET_ROWS, postingBucket } from "../store/postings.js";
import { attributeText, LOG_JOINS, LOG_SEVERITY, registerAttributeFunctions, Where } from "./sql-parts.js";
import { StatementCache } from "./statement-cache.js";
import type { FacetField, FacetValue } from "./telemetry-reader.js";
import { capText } from "./value-cap.js";

export type FacetWindow = { fromNs: bigint; toNs: bigint; service?: string };

/**
 * Buckets of span row ids that may hold ids of the window's range that are not the window's,
 * past which counting from the index costs more than reading the window's spans (each such
 * bucket's index entries are read row by row).
 */
const MAX_EXCLUDED_BUCKETS = 32;

type Counts = Map<string, number>;

/** Every blob of the span postings kept hashed: packed ones and those pending (store/hashed-postings.ts). */
const HASHED_BLOBS = `(SELECT bucket, key_id, entries FROM span_hashed_postings UNION ALL
  SELECT bucket, key_id, entries FROM span_pending_hashes)`;

/** The posting buckets holding ids in [a, b], as a JSON array for `json_each`. */
function bucketRange(a: number, b: number): string {
  const first = postingBucket(a);
  return JSON.stringify(Array.from({ length: postingBucket(b) - first + 1 }, (_, i) => first + i));
}

/**
 * The `limit` values counted most, as an answer carries them: values cut at the value cap
 * (value-cap.ts), attribute keys (`keys`) whole, as record answers carry them.
 */
function top(counts: Counts, limit: number, keys: boolean): FacetValue[] {
  return [...counts]
    .filter(([, count]) => count > 0)
    .sort(([a, x], [b, y]) => y - x || (a < b ? -1 : a > b ? 1 : 0))
    .slice(0, limit)
    .map(([value, count]) => ({ value: keys ? value : capText(value), count }));
}

/**
 * The ids in [min, max] that are not in `inWindow` (in any order): rows stored among the
 * window's rows but outside it (an old batch arriving late, spans exported a little late at
 * the window's start), or deleted ones whose index entries remain (a 2018 span trimmed at
 * once). Ascending; null when they fall in more than `maxBuckets` posting buckets.
 */
export function excludedIds(min: number, max: number, inWindow: Iterable<number>, maxBuckets: number): number[] | null {
  // A bitmap of the range: the window's ids come in start-time order, and sorting them costs more.
  const seen = new Uint8Array(max - min + 1);
  for (const id of inWindow) seen[id - min] = 1;
  const excluded: number[] = [];
  let buckets = 0;
  let lastBucket = -1;
  for (let i = 0; i < seen.length; i++) {
    if (seen[i] === 1) continue;
    const id = min + i;
    const bucket = postingBucket(id);
    if (bucket !== lastBucket) {
      if (++buckets > maxBuckets) return null;
      lastBucket = bucket;
    }
    excluded.push(id);
  }
  return excluded;
}

/**
 * Facet values and their counts. Attribute facets count what a span search over the same
 * window, service and attribute would find: the spans that start in the window and carry
 * the attribute (the postings index, as span search reads it).
 */
export class SqliteFacets {
  private readonly statements: StatementCache;
  /** Span rows from this id on have posting entries that never cross a bucket (postings.ts). */
  private readonly bucketedFrom: number;

  constructor(private readonly db: Database.Database) {
    this.statements = new StatementCache(db);
    this.bucketedFrom = bucketedPostingsFrom(db);
    registerAttributeFunctions(db);
    registerPostingFunctions(db);
    registerHashedPostingFunctions(db);
  }

  private prepare(sql: string): Database.Statement {
    return this.statements.get(sql);
  }

  facets(field: FacetField, window: FacetWindow, limit: number): FacetValue[] {
    if (field.type === "metrics") return this.metricFacets(field, window, limit);
    if (field.type === "traces" && (field.field === "attribute_keys" || field.field === "attribute_values")) {
      const key = field.field === "attribute_values" ? field.key : null;
      // One read transaction: the writer's packer moves postings between forms (entries,
      // hashed, pending), and statements reading different snapshots could count rows twice or
      // not at all.
      const counts = this.db.transaction(
        () =>
          (window.service === undefined ? this.attributesFromIndex(key, window) : null) ??
          this.attributesFromRows(key, window),
      )();
      return top(counts, limit, key === null);
    }
    const where = new Where();
    let sql: string;
    if (field.type === "logs") {
      where.add("l.ts_ns BETWEEN ? AND ?", window.fromNs, window.toNs);
      if (window.service !== undefined) where.add("v.name = ?", window.service);
      const key = {
        service: "v.name",
        severity: LOG_SEVERITY,
        scope: "sc.name",
      }[field.field];
      sql = `SELECT ${key} AS value, count(*) AS count FROM logs l ${LOG_JOINS} ${where} GROUP BY 1`;
    } else {
      where.add("t.start_ns BETWEEN ? AND ?", window.fromNs, window.toNs);
      if (window.service !== undefined) {
        where.add(
          "EXISTS (SELECT 1 FROM trace_services ts JOIN services sv ON sv.id = ts.service_id WHERE ts.trace_key = t.trace_key AND sv.name = ?)",
          window.service,
        );
      }
      if (field.field === "service") {
        sql = `SELECT v.name AS value, count(*) AS count FROM traces t JOIN trace_services tsv ON tsv.trace_key = t.trace_key
          JOIN services v ON v.id = tsv.service_id ${where} GROUP BY 1`;
      } else if (field.field === "operation") {
        // Counted by the stored form of the name, then named (span_names, schema 19).
        sql = `SELECT coalesce(n.name, g.name) AS value, g.count FROM (SELECT t.root_name_id AS id, t.root_name AS name,
          count(*) AS count FROM traces t ${where} GROUP BY 1, 2) g LEFT JOIN span_names n ON n.id = g.id`;
      } else {
        sql = `SELECT CASE WHEN t.error_count > 0 THEN 'error' ELSE 'ok' END AS value, count(*) AS count FROM traces t ${where} GROUP BY 1`;
      }
    }
    const rows = this.prepare(
      `SELECT value, count FROM (${sql}) WHERE value IS NOT NULL ORDER BY count DESC, value LIMIT ?`,
    ).all(...where.params, limit) as { value: string | number; count: bigint }[];
    return rows.map((row) => ({ value: capText(String(row.value)), count: Number(row.count) }));
  }

  /**
   * Metric facets count series (not points): the series of any metric whose points span meets
   * the window; attribute facets read the series' index (point attributes).
   */
  private metricFacets(field: FacetField & { type: "metrics" }, window: FacetWindow, limit: number): FacetValue[] {
    const where = new Where();
    where.add("msl.last_ns >= ? AND ms.first_ns <= ?", window.fromNs, window.toNs);
    if (window.service !== undefined) where.add("v.name = ?", window.service);
    const from =
      "metric_series ms JOIN metric_series_last msl ON msl.series_id = ms.id JOIN services v ON v.id = ms.service_id";
    let sql: string;
    if (field.field === "name") {
      sql = `SELECT m.name AS value, count(*) AS count FROM ${from} JOIN metrics m ON m.id = ms.metric_id ${where} GROUP BY 1`;
    } else if (field.field === "service") {
      sql = `SELECT v.name AS value, count(*) AS count FROM ${from} ${where} GROUP BY 1`;
    } else {
      const attributes = "JOIN metric_series_attributes a ON a.series_id = ms.id JOIN attr_keys k ON k.id = a.key_id";
      if (field.field === "attribute_values") where.add("k.key = ?", field.key);
      const value = field.field === "attribute_values" ? "a.value" : "k.key";
      sql = `SELECT ${value} AS value, count(DISTINCT ms.id) AS count FROM ${from} ${attributes} ${where} GROUP BY 1`;
    }
    const rows = this.prepare(`SELECT value, count FROM (${sql}) ORDER BY count DESC, value LIMIT ?`).all(
      ...where.params,
      limit,
    ) as { value: string; count: bigint }[];
    // Attribute keys whole, as records carry them; names, services and values cut at the value cap.
    const shown = field.field === "attribute_keys" ? String : (value: unknown) => capText(String(value));
    return rows.map((row) => ({ value: shown(row.value), count: Number(row.count) }));
  }

  /**
   * Attribute keys (key null) or one key's values, read from each span in the window: exact
   * in every case, and what a service narrows to (the index cannot tell services apart).
   */
  private attributesFromRows(key: string | null, window: FacetWindow): Counts {
    const where = new Where();
    where.add("s.start_ns BETWEEN ? AND ?", window.fromNs, window.toNs);
    if (window.service !== undefined) where.add("v.name = ?", window.service);
    // Null values are not indexed (indexText): neither span search nor facets count them.
    const sql =
      key === null
        ? `SELECT a.key, count(*) FROM spans s JOIN services v ON v.id = s.service_id, json_each(obs_attributes_json(s.attributes)) a
            ${where} AND a.type <> 'null' GROUP BY 1`
        : `SELECT value, count(*) FROM (SELECT ${attributeText("s.attributes")} AS value
            FROM spans s JOIN services v ON v.id = s.service_id ${where}) WHERE value IS NOT NULL GROUP BY 1`;
    const rows = this.prepare(sql)
      .raw()
      .all(...(key === null ? [] : [key]), ...where.params) as [string, bigint][];
    return new Map(rows.map(([v, count]) => [v, Number(count)]));
  }

  /**
   * The same counts from the postings index, without reading the spans: the index entries of
   * the id range the window's spans occupy, less those of the ids in that range that are not
   * the window's. Null when that cannot be done exactly or cheaply (entries written before
   * postings were split at bucket boundaries, the ids to leave out in too many buckets, or the
   * values of a key some of whose postings in the range are hashed: a hash is not its value).
   */
  private attributesFromIndex(key: string | null, window: FacetWindow): Counts | null {
    const [min, max, count] = this.prepare(
      "SELECT min(id), max(id), count(*) FROM spans WHERE start_ns BETWEEN ? AND ?",
    )
      .raw()
      .get(window.fromNs, window.toNs) as [bigint | null, bigint | null, bigint];
    if (min === null || max === null) return new Map();
    const [lo, hi] = [Number(min), Number(max)];
    if (lo < this.bucketedFrom) return null;
    let excluded: number[] = [];
    if (Number(count) !== hi - lo + 1) {
      // Row ids are below 2^53: plain numbers, without a BigInt per row.
      const ids = this.prepare("SELECT id FROM spans WHERE start_ns BETWEEN ? AND ?")
        .pluck()
        .safeIntegers(false)
        .all(window.fromNs, window.toNs) as number[];
      const found = excludedIds(lo, hi, ids, MAX_EXCLUDED_BUCKETS);
      if (found === null) return null;
      excluded = found;
    }
    let keyId: bigint | undefined;
    if (key !== null) {
      keyId = this.prepare("SELECT id FROM attr_keys WHERE key = ?").pluck().get(key) as bigint | undefined;
      if (keyId === undefined) return new Map();
      if (this.hasHashedPostings(keyId, lo, hi)) return null;
    }
    const counts = this.indexCounts(keyId, lo, hi);
    if (keyId === undefined) {
      for (const [k, n] of this.hashedKeyCounts(lo, hi)) counts.set(k, (counts.get(k) ?? 0) + n);
    }
    for (const [value, n] of this.excludedCounts(keyId, excluded)) counts.set(value, (counts.get(value) ?? 0) - n);
    return counts;
  }

  /** Whether any posting bucket holding ids in [a, b] keeps key `keyId`'s postings hashed. */
  private hasHashedPostings(keyId: bigint, a: number, b: number): boolean {
    if (!everHashedKeys(this.db, "span_postings").has(Number(keyId))) return false;
    const buckets = bucketRange(a, b);
    return (
      this.prepare(
        `SELECT 1 FROM json_each(@buckets) b
         WHERE EXISTS (SELECT 1 FROM span_hashed_postings h WHERE h.bucket = b.value AND h.key_id = @key)
           OR EXISTS (SELECT 1 FROM span_pending_hashes h WHERE h.bucket = b.value AND h.key_id = @key) LIMIT 1`,
      ).get({ buckets, key: keyId }) !== undefined
    );
  }

  /** Rows with ids in [a, b] per attribute key, from the hashed postings and the pending blobs. */
  private hashedKeyCounts(a: number, b: number): Counts {
    if (everHashedKeys(this.db, "span_postings").size === 0) return new Map();
    // A blob of a bucket wholly inside [a, b] counts whole.
    const rowsInside = `CASE WHEN h.bucket * ${POSTING_BUCKET_ROWS} >= @a AND (h.bucket + 1) * ${POSTING_BUCKET_ROWS} - 1 <= @b
      THEN length(h.entries) / ${HASHED_ENTRY_BYTES} ELSE obs_hashed_count(h.entries, h.bucket, @a, @b) END`;
    const rows = this.prepare(
      `SELECT k.key, sum(${rowsInside}) FROM
         ${HASHED_BLOBS} h
         JOIN attr_keys k ON k.id = h.key_id
       WHERE h.bucket BETWEEN @first AND @last GROUP BY k.key`,
    )
      .raw()
      .all({ a, b, first: postingBucket(a), last: postingBucket(b) }) as [string, bigint][];
    return new Map(rows.map(([key, n]) => [key, Number(n)]));
  }

  /** Rows among `ids` (sorted) per attribute key, or per value of one key, from the index. */
  private excludedCounts(keyId: bigint | undefined, ids: number[]): Counts {
    if (ids.length === 0) return new Map();
    const buckets = JSON.stringify([...new Set(ids.map(postingBucket))]);
    const bind = { lo: ids[0], hi: ids[ids.length - 1], buckets, ids: JSON.stringify(ids) };
    // Every row of the entries that may hold one of the ids is read, so only their buckets are.
    const from = `span_postings p, json_each(obs_posting_rows(p.rows, p.first_row)) r`;
    const where = `p.bucket IN (SELECT value FROM json_each(@buckets)) AND p.last_row >= @lo AND p.first_row <= @hi
      AND r.value IN (SELECT value FROM json_each(@ids))`;
    const rows = (
      keyId !== undefined
        ? this.prepare(`SELECT p.value, count(*) FROM ${from} WHERE ${where} AND p.key_id = @key GROUP BY p.value`)
            .raw()
            .all({ ...bind, key: keyId })
        : this.prepare(
            `SELECT k.key, count(*) FROM ${from} JOIN attr_keys k ON k.id = p.key_id WHERE ${where} GROUP BY k.key`,
          )
            .raw()
            .all(bind)
    ) as [string, bigint][];
    const counts = new Map(rows.map(([value, n]) => [value, Number(n)]));
    if (keyId === undefined) {
      // A key's values are counted from hashed postings never (hasHashedPostings), its rows are.
      const hashed = this.prepare(
        `SELECT k.key, count(*) FROM
           ${HASHED_BLOBS} h, json_each(obs_hashed_all(h.entries, h.bucket)) r
           JOIN attr_keys k ON k.id = h.key_id
         WHERE h.bucket IN (SELECT value FROM json_each(@buckets)) AND r.value IN (SELECT value FROM json_each(@ids))
         GROUP BY k.key`,
      )
        .raw()
        .all({ buckets, ids: bind.ids }) as [string, bigint][];
      for (const [key, n] of hashed) counts.set(key, (counts.get(key) ?? 0) + Number(n));
    }
    return counts;
  }

  /** Rows with ids in [a, b] per attribute key, or per value of one key, from the index. */
  private indexCounts(keyId: bigint | undefined, a: number, b: number): Counts {
    const buckets = bucketRange(a, b);
    // Entries wholly inside [a, b] count whole; one that straddles an end counts its rows inside.
    // An entry of one row (most: unique values) has an empty blob and costs no function call.
    const rowsInside = `CASE WHEN p.first_row >= @a AND p.last_row <= @b
      THEN (CASE WHEN length(p.rows) = 0 THEN 1 ELSE obs_posting_count(p.rows) END)
      ELSE (SELECT count(*) FROM json_each(obs_posting_rows(p.rows, p.first_row)) r WHERE r.value BETWEEN @a AND @b) END`;
    const inRange = "p.bucket IN (SELECT value FROM json_each(@buckets)) AND p.last_row >= @a AND p.first_row <= @b";
    const rows = (
      keyId !== undefined
        ? this.prepare(
            `SELECT p.value, sum(${rowsInside}) FROM span_postings p WHERE ${inRange} AND p.key_id = @key GROUP BY p.value`,
          )
            .raw()
            .all({ a, b, buckets, key: keyId })
        : this.prepare(
            `SELECT k.key, sum(${rowsInside}) FROM span_postings p JOIN attr_keys k ON k.id = p.key_id
             WHERE ${inRange} GROUP BY k.key`,
          )
            .raw()
            .all({ a, b, buckets })
    ) as [string, bigint][];
    return new Map(rows.map(([value, n]) => [value, Number(n)]));
  }
}

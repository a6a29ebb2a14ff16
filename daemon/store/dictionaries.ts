import type Database from "better-sqlite3";
import type { ResourceRecord, ScopeRecord } from "../otlp/records.js";
import { codeAttributes, LastKeys, storableKey } from "./attribute-coding.js";
import { AttributeValueDictionary, dictionaryBoundFor } from "./attribute-values.js";
import { SpanNames } from "./span-names.js";

/** Bounded memo: cleared when full, since a miss only costs one indexed lookup. */
class Memo<V> {
  private readonly map = new Map<string, V>();
  constructor(private readonly capacity: number) {}
  get(key: string): V | undefined {
    return this.map.get(key);
  }
  set(key: string, value: V): void {
    if (this.map.size >= this.capacity) this.map.clear();
    this.map.set(key, value);
  }
  delete(key: string): void {
    this.map.delete(key);
  }
  clear(): void {
    this.map.clear();
  }
}

export interface ResolvedResource {
  id: number;
  serviceId: number;
}

/**
 * Id lookups for the normalized tables (services, resources, scopes, span names, attribute
 * keys and values), memoized in the writer. Only the writer thread uses this, inside its transactions.
 */
export class Dictionaries {
  private readonly services = new Memo<number>(10_000);
  private readonly resources = new Memo<ResolvedResource>(10_000);
  private readonly scopes = new Memo<number>(10_000);
  private readonly keys = new Memo<number>(100_000);
  /** Key ids by the key's JSON text, as the stored attributes' text writes it (-1: not JSON.stringify's form). */
  private readonly keysByJson = new Memo<number>(100_000);
  /** Each kind of record's last keys, by position (attribute-coding.ts LastKeys). */
  private readonly lastKeys = { spans: new LastKeys(), logs: new LastKeys() };
  private readonly values: AttributeValueDictionary;
  private readonly spanNames: SpanNames;
  /** Services created since the last `takeNewServices()`, for the counters. */
  private newServices = 0;

  private readonly stmt: {
    serviceInsert: Database.Statement;
    serviceSelect: Database.Statement;
    resourceInsert: Database.Statement;
    resourceSelect: Database.Statement;
    scopeInsert: Database.Statement;
    scopeSelect: Database.Statement;
    keyInsert: Database.Statement;
    keySelect: Database.Statement;
  };

  /** `maxDbBytes`: the store's size cap (0: none), which bounds the value dictionary. */
  constructor(db: Database.Database, maxDbBytes = 0) {
    this.stmt = {
      serviceInsert: db.prepare(
        "INSERT INTO services (name, first_seen_ns, last_seen_ns) VALUES (?, ?, ?) ON CONFLICT (name) DO NOTHING RETURNING id",
      ),
      serviceSelect: db.prepare("SELECT id FROM services WHERE name = ?").pluck(),
      resourceInsert: db.prepare(
        "INSERT INTO resources (hash, service_id, attributes, dropped_attributes_count, schema_url) VALUES (?, ?, ?, ?, ?) ON CONFLICT (hash) DO NOTHING",
      ),
      resourceSelect: db.prepare("SELECT id, service_id FROM resources WHERE hash = ?").raw(),
      scopeInsert: db.prepare(
        "INSERT INTO scopes (hash, name, version, attributes, dropped_attributes_count, schema_url) VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (hash) DO NOTHING",
      ),
      scopeSelect: db.prepare("SELECT id FROM scopes WHERE hash = ?").pluck(),
      keyInsert: db.prepare("INSERT INTO attr_keys (key) VALUES (?) ON CONFLICT (key) DO NOTHING RETURNING id").pluck(),
      keySelect: db.prepare("SELECT id FROM attr_keys WHERE key = ?").pluck(),
    };
    for (const statement of Object.values(this.stmt)) statement.safeIntegers(false);
    this.values = new AttributeValueDictionary(db, dictionaryBoundFor(maxDbBytes));
    this.spanNames = new SpanNames(db, maxDbBytes);
  }

  serviceId(name: string, seenNs: bigint): number {
    const known = this.services.get(name);
    if (known !== undefined) return known;
    const inserted = this.stmt.serviceInsert.get(name, seenNs, seenNs) as { id: number } | undefined;
    if (inserted) this.newServices++;
    const id = inserted ? inserted.id : (this.stmt.serviceSelect.get(name) as number);
    this.services.set(name, id);
    return id;
  }

  resource(record: ResourceRecord, seenNs: bigint): ResolvedResource {
    const known = this.resources.get(record.hash);
    if (known) return known;
    const serviceId = this.serviceId(record.serviceName, seenNs);
    this.stmt.resourceInsert.run(
      record.hash,
      serviceId,
      record.attributes,
      record.droppedAttributesCount,
      record.schemaUrl,
    );
    const [id, storedServiceId] = this.stmt.resourceSelect.get(record.hash) as [number, number];
    const resolved = { id, serviceId: storedServiceId };
    this.resources.set(record.hash, resolved);
    return resolved;
  }

  scope(record: ScopeRecord): number {
    const known = this.scopes.get(record.hash);
    if (known !== undefined) return known;
    this.stmt.scopeInsert.run(
      record.hash,
      record.name,
      record.version,
      record.attributes,
      record.droppedAttributesCount,
      record.schemaUrl,
    );
    const id = this.stmt.scopeSelect.get(record.hash) as number;
    this.scopes.set(record.hash, id);
    return id;
  }

  /** The id a span name is stored under, or null when spans keep it in their rows (span-names.ts). */
  spanNameId(name: string): number | null {
    return this.spanNames.idOf(name);
  }

  /** The id of an attribute key, created when new. */
  keyId(key: string): number {
    const known = this.keys.get(key);
    if (known !== undefined) return known;
    const id = (this.stmt.keyInsert.get(key) ?? this.stmt.keySelect.get(key)) as number;
    this.keys.set(key, id);
    return id;
  }

  /**
   * A key id by the key's JSON text (created when new); -1 when the text is not how
   * JSON.stringify writes the key, or the key would not come back from SQLite the same.
   */
  private readonly keyIdOfJson = (keyJson: string): number => {
    const known = this.keysByJson.get(keyJson);
    if (known !== undefined) return known;
    const key = JSON.parse(keyJson) as string;
    const id = JSON.stringify(key) === keyJson && storableKey(key) ? this.keyId(key) : -1;
    this.keysByJson.set(keyJson, id);
    return id;
  };

  /** A span's or log record's attributes (their JSON text) in their stored form (attribute-coding.ts). */
  codeAttributes(json: string, of: "spans" | "logs"): Buffer {
    return codeAttributes(json, this.keyIdOfJson, this.lastKeys[of], this.values.idOf);
  }

  /** The id of an existing attribute key, without creating one. */
  existingKeyId(key: string): number | undefined {
    return this.keys.get(key) ?? (this.stmt.keySelect.get(key) as number | undefined);
  }

  takeNewServices(): number {
    const count = this.newServices;
    this.newServices = 0;
    return count;
  }

  /** After a rolled-back transaction the memos may name rows that no longer exist. */
  reset(): void {
    this.services.clear();
    this.resources.clear();
    this.scopes.clear();
    this.spanNames.reset();
    this.keys.clear();
    this.keysByJson.clear();
    this.lastKeys.spans.clear();
    this.lastKeys.logs.clear();
    this.values.reset();
    this.newServices = 0;
  }
}

import { createHash } from "node:crypto";
import type Database from "better-sqlite3";
import type { Migration } from "./shared.js";

// A resource's and a scope's hash, their identity, was made from their attributes' JSON in the
// order sent; OTLP attribute sets are unordered, so one resource sent in another order (resource
// detectors merged in another order after a restart, a collector in between) became a second
// resource, and every metric series under it a second series: its points counted twice. New
// hashes are made from the attributes with their keys in sorted order (batch-scopes.ts); this
// step makes the stored ones the same way, so the resources and scopes a store has keep their
// series. A row whose keys are in order already, with no NUL in a part, keeps its hash: it is
// made from the same text. A scope whose name or version holds a NUL is hashed as the decoder
// now hashes it (identity-key.ts). Where two stored rows are one set in two orders, the one in
// key order (or else the first) has the new hash and the others keep theirs, which nothing sends
// again: their series stay apart for the history already stored. A log's content hash includes
// its resource's and scope's, so a log batch from a resource sent out of key order and resent
// across the upgrade is stored a second time.
//
// Frozen: the hashing below is the decoder's at version 25, written out here.

type Plain = { [key: string]: unknown };

/** The attributes' JSON with its keys in sorted order; the text itself when they already are. */
function sortedJson(json: string): string {
  const object = JSON.parse(json) as Plain;
  const keys = Object.keys(object);
  let sorted = true;
  for (let i = 1; i < keys.length && sorted; i++) sorted = (keys[i - 1] as string) < (keys[i] as string);
  if (sorted) return json;
  const result: Plain = {};
  for (const key of keys.sort()) {
    if (key === "__proto__")
      Object.defineProperty(result, key, { value: object[key], enumerable: true, writable: true, configurable: true });
    else result[key] = object[key];
  }
  return JSON.stringify(result);
}

/**
 * The hash of an identity's parts, the attributes' JSON as stored at index `at`; null where it is
 * the hash the row has already (keys in order, no NUL in a part: the same text as before).
 */
function hashOf(parts: readonly (string | number)[], at: number): string | null {
  const json = parts[at] as string;
  const sorted = sortedJson(json);
  const nul = parts.some((part) => typeof part === "string" && part.includes("\u0000"));
  if (sorted === json && !nul) return null;
  const all = parts.map((part, i) => (i === at ? sorted : part));
  const text = nul ? JSON.stringify(all.map(String)) : all.join("\u0000");
  return createHash("sha1").update(text).digest("hex");
}

interface Row {
  id: number;
  hash: string;
  attributes: string;
  dropped_attributes_count: number;
  schema_url: string | null;
  name?: string;
  version?: string | null;
}

function rehash(
  db: Database.Database,
  table: "resources" | "scopes",
  partsOf: (row: Row) => (string | number)[],
  at: number,
): void {
  const columns = table === "scopes" ? "name, version, " : "";
  const rows = db
    .prepare(`SELECT id, hash, ${columns}attributes, dropped_attributes_count, schema_url FROM ${table} ORDER BY id`)
    .safeIntegers(false)
    .all() as Row[];
  const taken = db.prepare(`SELECT 1 FROM ${table} WHERE hash = ?`).pluck();
  const update = db.prepare(`UPDATE ${table} SET hash = ? WHERE id = ?`);
  for (const row of rows) {
    const wanted = hashOf(partsOf(row), at);
    if (wanted === null || wanted === row.hash || taken.get(wanted) !== undefined) continue;
    update.run(wanted, row.id);
  }
}

export const v025UnorderedResourceHashes: Migration = {
  version: 25,
  description: "resource and scope hashes made from their attributes in key order",
  up(db) {
    rehash(db, "resources", (r) => [r.attributes, r.dropped_attributes_count, r.schema_url ?? ""], 0);
    rehash(
      db,
      "scopes",
      (s) => [s.name ?? "", s.version ?? "", s.attributes, s.dropped_attributes_count, s.schema_url ?? ""],
      2,
    );
  },
};

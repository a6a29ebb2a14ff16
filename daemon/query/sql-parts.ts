/** SQL fragments the readers share (sqlite-reader.ts, sqlite-facets.ts). */

import type Database from "better-sqlite3";
import { indexText, type PlainValue } from "../otlp/any-value.js";
import { logSeverityTextSql } from "../store/stored-log-fields.js";
import { attributeKeysOf } from "./attribute-keys.js";

export const LOG_JOINS = "JOIN services v ON v.id = l.service_id JOIN scopes sc ON sc.id = l.scope_id";

/**
 * SQL for the index text (indexText()) of attribute `?` in the stored attributes `column`:
 * what an exact `attr.KEY=VALUE` filter matches, NULL when absent or null. Needs
 * registerAttributeFunctions() on the connection.
 */
export function attributeText(column: string): string {
  return `obs_attribute_text(${column}, ?)`;
}

/**
 * Defines on a connection:
 * - obs_attribute_text(attributes, key): the index text of one attribute, from attributes
 *   stored as JSON text (resources, scopes, metric series) or coded (spans and log records,
 *   store/attribute-coding.ts). The text is computed by indexText(), the function the store
 *   indexed the value with, from the value as JSON.parse reads it: SQL's own text of a number
 *   differs (CAST gives 1.25e-07 for 1.25e-7, 0.3 for 0.30000000000000004), and a facet or
 *   group listing a value that span search cannot find is worse than useless.
 * - obs_attributes_json(attributes): coded attributes as the JSON text they were coded from.
 */
export function registerAttributeFunctions(db: Database.Database): void {
  const keys = attributeKeysOf(db);
  let lastKey = "";
  let lastKeyJson = '""';
  db.function("obs_attribute_text", { deterministic: true }, (stored: unknown, key: unknown) => {
    if (typeof key !== "string") return null;
    if (typeof stored === "string") {
      const attributes = JSON.parse(stored) as Record<string, PlainValue>;
      return Object.hasOwn(attributes, key) ? indexText(attributes[key] as PlainValue) : null;
    }
    if (!(stored instanceof Uint8Array)) return null;
    if (key !== lastKey) {
      lastKey = key;
      lastKeyJson = JSON.stringify(key);
    }
    const value = keys.valueJson(stored, lastKeyJson);
    return value === undefined ? null : indexText(JSON.parse(value) as PlainValue);
  });
  db.function("obs_attributes_json", { deterministic: true }, (stored: unknown) => {
    if (stored instanceof Uint8Array) return keys.json(stored);
    return stored === null ? null : String(stored);
  });
}

/** Severity names by OTLP severity number range, so `severity=warn` matches records with no text. */
export const SEVERITY_NAME = `CASE
  WHEN l.severity_number BETWEEN 1 AND 4 THEN 'trace' WHEN l.severity_number BETWEEN 5 AND 8 THEN 'debug'
  WHEN l.severity_number BETWEEN 9 AND 12 THEN 'info' WHEN l.severity_number BETWEEN 13 AND 16 THEN 'warn'
  WHEN l.severity_number BETWEEN 17 AND 20 THEN 'error' WHEN l.severity_number BETWEEN 21 AND 24 THEN 'fatal'
  ELSE '' END`;

/** A log record's severity as stats and facets group by it: its text, else its number's name. */
export const LOG_SEVERITY = `coalesce(nullif(${logSeverityTextSql("l")}, ''), nullif(${SEVERITY_NAME}, ''))`;

/** `%text%` for LIKE, with LIKE's own wildcards in the text escaped. */
export function likeAny(text: string): string {
  return `%${text.replace(/[\\%_]/g, (ch) => `\\${ch}`)}%`;
}

/** SQL conditions and their parameters, built up filter by filter. */
export class Where {
  readonly conditions: string[] = [];
  readonly params: unknown[] = [];
  add(condition: string, ...params: unknown[]): void {
    this.conditions.push(condition);
    this.params.push(...params);
  }
  toString(): string {
    return this.conditions.length ? `WHERE ${this.conditions.join(" AND ")}` : "";
  }
}

/** SQL fragments the readers share (sqlite-reader.ts, sqlite-facets.ts). */

export const LOG_JOINS = "JOIN services v ON v.id = l.service_id JOIN scopes sc ON sc.id = l.scope_id";

/** An attribute value (a row of json_each) as the text exact filters match: see indexText(). */
export const ATTRIBUTE_TEXT =
  "CASE a.type WHEN 'true' THEN 'true' WHEN 'false' THEN 'false' WHEN 'null' THEN NULL ELSE CAST(a.value AS TEXT) END";

/** Severity names by OTLP severity number range, so `severity=warn` matches records with no text. */
export const SEVERITY_NAME = `CASE
  WHEN l.severity_number BETWEEN 1 AND 4 THEN 'trace' WHEN l.severity_number BETWEEN 5 AND 8 THEN 'debug'
  WHEN l.severity_number BETWEEN 9 AND 12 THEN 'info' WHEN l.severity_number BETWEEN 13 AND 16 THEN 'warn'
  WHEN l.severity_number BETWEEN 17 AND 20 THEN 'error' WHEN l.severity_number BETWEEN 21 AND 24 THEN 'fatal'
  ELSE '' END`;

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

/**
 * MCP answers name every field in snake_case, as tool arguments do, so an id copied from one
 * answer is the argument of the next call under the same name. The API's records are camelCase;
 * these turn the keys of a record the tools pass through (audit figures, windows) into snake_case.
 * Pure.
 */

/** `durationMin` → `duration_min`; a snake_case or lower-case name is unchanged. */
export function snakeCase(name: string): string {
  return name.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`);
}

/** A copy of `record` with its own keys (not nested ones) in snake_case. */
export function snakeKeys<V>(record: Readonly<Record<string, V>>): Record<string, V> {
  return Object.fromEntries(Object.entries(record).map(([key, value]) => [snakeCase(key), value]));
}

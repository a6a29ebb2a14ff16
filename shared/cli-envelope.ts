/**
 * The one JSON document every `obs ... --json` command writes: `obs.cli/v1`. Keys are
 * snake_case; `data` and `page` come from the HTTP API's camelCase answers, converted here.
 * `schemas/cli/envelope.json` describes it.
 */
import { ExitCode } from "./exit-codes.js";

export const CLI_SCHEMA_VERSION = "obs.cli/v1";

/** Every `error.code`, and the exit code each one ends the command with. */
export const ERROR_EXIT_CODES = {
  invalid_argument: ExitCode.invalidArgument,
  invalid_config: ExitCode.invalidArgument,
  collector_unavailable: ExitCode.collectorUnavailable,
  collector_ambiguous: ExitCode.invalidArgument,
  not_found: ExitCode.storeFailure,
  store_failure: ExitCode.storeFailure,
  query_failure: ExitCode.storeFailure,
  timeout: ExitCode.timeout,
  audit_failed: ExitCode.failed,
  check_failed: ExitCode.failed,
  internal: ExitCode.storeFailure,
} as const;

export type ErrorCode = keyof typeof ERROR_EXIT_CODES;

export interface CliPage {
  limit: number;
  lookback: string | null;
  returned: number;
  truncated: boolean;
  next_cursor: string | null;
}

export interface CliEnvelope {
  schema_version: typeof CLI_SCHEMA_VERSION;
  command: string;
  generated_at: string;
  data: unknown;
  page: CliPage | null;
  warnings: string[];
  error?: { code: ErrorCode; message: string; details?: unknown };
}

/**
 * Fields whose values are telemetry, not API fields: an attribute map (a span's, an event's, a
 * link's, a resource's or a scope's), a log body, a metric's metadata and a metric group's key
 * values (`{"attr.userId": ...}`) hold the sender's own keys (`http.route`, `userId`,
 * `someCamel`), which pass through byte for byte.
 */
const TELEMETRY_FIELDS: ReadonlySet<string> = new Set(["attributes", "body", "metadata", "group"]);

/**
 * `nextCursor` -> `next_cursor` for the envelope's and the records' own field names, through
 * objects and arrays; values, and everything under a telemetry field, untouched. Iterative: a
 * trace's span tree can be tens of thousands of levels deep.
 */
export function toSnakeCase(value: unknown): unknown {
  const root: { value?: unknown } = {};
  const work: { from: unknown; into: Record<string, unknown> | unknown[]; key: string | number }[] = [
    { from: value, into: root as Record<string, unknown>, key: "value" },
  ];
  for (let item = work.pop(); item !== undefined; item = work.pop()) {
    const { from, into, key } = item;
    let copy: unknown = from;
    if (Array.isArray(from)) {
      const list: unknown[] = new Array(from.length);
      for (let index = 0; index < from.length; index += 1) work.push({ from: from[index], into: list, key: index });
      copy = list;
    } else if (from !== null && typeof from === "object") {
      const object: Record<string, unknown> = {};
      for (const [name, inner] of Object.entries(from)) {
        if (TELEMETRY_FIELDS.has(name)) object[snakeKey(name)] = inner;
        else {
          object[snakeKey(name)] = undefined;
          work.push({ from: inner, into: object, key: snakeKey(name) });
        }
      }
      copy = object;
    }
    (into as Record<string | number, unknown>)[key] = copy;
  }
  return root.value;
}

function snakeKey(key: string): string {
  return key.replace(/([a-z0-9])([A-Z])/g, "$1_$2").toLowerCase();
}

function header(command: string, now: Date) {
  return { schema_version: CLI_SCHEMA_VERSION, command, generated_at: now.toISOString() } as const;
}

export function successEnvelope(
  command: string,
  data: unknown,
  page: object | null = null,
  warnings: string[] = [],
  now: Date = new Date(),
): CliEnvelope {
  return {
    ...header(command, now),
    data: toSnakeCase(data),
    page: page === null ? null : (toSnakeCase(page) as CliPage),
    warnings,
  };
}

export function errorEnvelope(
  command: string,
  code: ErrorCode,
  message: string,
  details?: unknown,
  now: Date = new Date(),
): CliEnvelope {
  return {
    ...header(command, now),
    data: null,
    page: null,
    warnings: [],
    error: { code, message, ...(details === undefined ? {} : { details }) },
  };
}

export function exitCodeOf(code: ErrorCode): number {
  return ERROR_EXIT_CODES[code];
}

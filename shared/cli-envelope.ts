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

/** `nextCursor` -> `next_cursor`, recursively through objects and arrays; values untouched. */
export function toSnakeCase(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(toSnakeCase);
  if (value === null || typeof value !== "object") return value;
  const out: Record<string, unknown> = {};
  for (const [key, inner] of Object.entries(value)) {
    out[snakeKey(key)] = isAttributeMap(key) ? inner : toSnakeCase(inner);
  }
  return out;
}

function snakeKey(key: string): string {
  return key.replace(/([a-z0-9])([A-Z])/g, "$1_$2").toLowerCase();
}

/** Attribute maps hold the telemetry's own keys (`http.route`, `userId`): those stay as sent. */
function isAttributeMap(key: string): boolean {
  return key === "attributes";
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

import {
  type CliEnvelope,
  type ErrorCode,
  errorEnvelope,
  exitCodeOf,
  successEnvelope,
} from "../../shared/cli-envelope.js";
import { ExitCode } from "../../shared/exit-codes.js";
import { jsonDocumentText } from "./json-text.js";

/** Writes a command's result: one JSON document with --json, else the human text. Returns the exit code. */
export function emitSuccess(
  json: boolean,
  command: string,
  data: unknown,
  human: string,
  page: object | null = null,
  warnings: string[] = [],
): number {
  if (json) writeDocument(successEnvelope(command, data, page, warnings));
  else process.stdout.write(`${human}\n`);
  return ExitCode.ok;
}

/**
 * A result that is also a failure (audit findings at or above --fail-on): the data as usual,
 * plus the `error` that explains the exit code. Human mode prints the result, and the
 * failure on stderr.
 */
export function emitFailingResult(
  json: boolean,
  command: string,
  data: unknown,
  human: string,
  failure: { code: ErrorCode; message: string },
): number {
  if (json) writeDocument({ ...successEnvelope(command, data), error: failure });
  else {
    process.stdout.write(`${human}\n`);
    process.stderr.write(`obs: ${failure.message}\n`);
  }
  return exitCodeOf(failure.code);
}

export function emitError(json: boolean, command: string, code: ErrorCode, message: string, details?: unknown): number {
  if (json) writeDocument(errorEnvelope(command, code, message, details));
  else process.stderr.write(`obs: ${message}\n`);
  return exitCodeOf(code);
}

function writeDocument(envelope: CliEnvelope): void {
  process.stdout.write(`${jsonDocumentText(envelope)}\n`);
}

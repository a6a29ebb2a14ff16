/** The JSON report: the whole run, keys in snake_case like every obs document. Pure. */
import { toSnakeCase } from "../../../shared/cli-envelope.js";
import type { RunReport } from "./run-result.js";

export function jsonReport(report: RunReport): string {
  return `${JSON.stringify(toSnakeCase(report), null, 2)}\n`;
}

/**
 * The edit `obs setup agentcli` makes to the agent's JSONC settings: the native
 * OpenTelemetry keys (the protocol only when asked: obs takes gRPC and HTTP on the same port, so
 * the agent may keep its own default), set through jsonc-parser so comments, formatting and every other setting
 * stay exactly as they were. Pure: text in, text and the list of changes out.
 */
import { type ParseError, parseTree, printParseErrorCode } from "jsonc-parser";
import {
  applySettingValues,
  formattingOf,
  nodeAt,
  PARSE_OPTIONS,
  repeatedKeyOn,
  repeatedKeyProblem,
  type SettingChange,
  type SettingsEdit,
  SettingsFileError,
  type SettingValue,
} from "./settings-edit.js";

export { formattingOf, type SettingChange, SettingsFileError, type SettingValue };
export type TelemetryEdit = SettingsEdit;

/** The agent's `telemetry.otlpProtocol` values. */
export type AgentProtocol = "grpc" | "http";

/** The agent's native telemetry keys, in the order they are written; the protocol only when given. */
export function telemetrySettings(collectorUrl: string, protocol?: AgentProtocol): [string[], SettingValue][] {
  return [
    [["telemetry", "enabled"], true],
    [["telemetry", "target"], "local"],
    [["telemetry", "otlpEndpoint"], collectorUrl],
    ...(protocol ? [[["telemetry", "otlpProtocol"], protocol] as [string[], SettingValue]] : []),
  ];
}

function lineAndColumn(text: string, offset: number): string {
  const before = text.slice(0, offset).split(/\r?\n/);
  return `line ${before.length}, column ${(before.at(-1)?.length ?? 0) + 1}`;
}

/** Throws when the settings text cannot be edited safely; the file is then left to the user. */
export function assertEditable(text: string, fileName: string): void {
  if (text.trim() === "") return;
  const errors: ParseError[] = [];
  const root = parseTree(text, errors, PARSE_OPTIONS);
  const firstError = errors[0];
  if (firstError) {
    throw new SettingsFileError(
      `${fileName} is not valid JSON with comments (${printParseErrorCode(firstError.error)} at ${lineAndColumn(text, firstError.offset)}); fix it by hand, obs left it unchanged`,
    );
  }
  if (root && root.type !== "object") {
    throw new SettingsFileError(`${fileName} must hold a JSON object at the top level; obs left it unchanged`);
  }
  const repeated = repeatedKeyOn(
    text,
    telemetrySettings("", "http").map(([path]) => path),
  );
  if (repeated) throw new SettingsFileError(`${repeatedKeyProblem(repeated, fileName)}; obs left it unchanged`);
  const telemetryNode = nodeAt(text, ["telemetry"]);
  if (telemetryNode && telemetryNode.type !== "object") {
    throw new SettingsFileError(
      `"telemetry" in ${fileName} is a ${telemetryNode.type}, not an object; fix it by hand, obs left it unchanged`,
    );
  }
}

/**
 * Sets the telemetry keys in `text` (an empty string for a file that does not exist yet).
 * Keys that already hold the wanted value are left untouched, so a second run changes nothing.
 */
export function applyTelemetrySettings(
  text: string,
  collectorUrl: string,
  fileName: string,
  protocol?: AgentProtocol,
): TelemetryEdit {
  assertEditable(text, fileName);
  return applySettingValues(text, telemetrySettings(collectorUrl, protocol));
}

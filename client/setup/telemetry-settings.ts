/**
 * The edit `obs setup agentcli` makes to the agent's JSONC settings: the native
 * OpenTelemetry keys (the protocol only when asked: obs takes gRPC and HTTP on the same port, so
 * the agent may keep its own default), set through jsonc-parser so comments, formatting and every other setting
 * stay exactly as they were. Pure: text in, text and the list of changes out.
 */
import {
  applyEdits,
  type FormattingOptions,
  findNodeAtLocation,
  getNodeValue,
  modify,
  type ParseError,
  parseTree,
  printParseErrorCode,
} from "jsonc-parser";

export type SettingValue = string | boolean;

/** One key the setup set: its dotted path, the value it had (null when absent) and the new one. */
export interface SettingChange {
  key: string;
  before: unknown;
  after: SettingValue;
}

export interface TelemetryEdit {
  text: string;
  changes: SettingChange[];
}

/** The settings file cannot be edited safely; nothing is written. */
export class SettingsFileError extends Error {
  override name = "SettingsFileError";
}

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

const PARSE_OPTIONS = { allowTrailingComma: true, disallowComments: false } as const;

function lineAndColumn(text: string, offset: number): string {
  const before = text.slice(0, offset).split(/\r?\n/);
  return `line ${before.length}, column ${(before.at(-1)?.length ?? 0) + 1}`;
}

/** Indentation and line endings as the file already uses them, so new lines blend in. */
export function formattingOf(text: string): FormattingOptions {
  const eol = text.includes("\r\n") ? "\r\n" : "\n";
  const indented = /^([ \t]+)\S/m.exec(text)?.[1];
  if (indented?.startsWith("\t")) return { insertSpaces: false, tabSize: 1, eol };
  return { insertSpaces: true, tabSize: indented ? indented.length : 2, eol };
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
  const telemetryNode = root ? findNodeAtLocation(root, ["telemetry"]) : undefined;
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
  const isBlank = text.trim() === "";
  const formattingOptions = formattingOf(text);
  let edited = text;
  const changes: SettingChange[] = [];
  for (const [path, wanted] of telemetrySettings(collectorUrl, protocol)) {
    const current = currentValue(edited, path);
    if (current === wanted) continue;
    edited = applyEdits(edited, modify(edited, path, wanted, { formattingOptions }));
    changes.push({ key: path.join("."), before: current ?? null, after: wanted });
  }
  if (isBlank && changes.length > 0 && !edited.endsWith(formattingOptions.eol ?? "\n")) {
    edited += formattingOptions.eol ?? "\n";
  }
  return { text: edited, changes };
}

function currentValue(text: string, path: string[]): unknown {
  if (text.trim() === "") return undefined;
  const root = parseTree(text, [], PARSE_OPTIONS);
  const node = root ? findNodeAtLocation(root, path) : undefined;
  return node ? getNodeValue(node) : undefined;
}

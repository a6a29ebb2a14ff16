import { parseArgs } from "node:util";
import type { CollectorAddress } from "./monitor-status.js";
import { collectorPort } from "./port-number.js";

/** A command simple enough to run without loading yargs and every command's definition. */
export interface FastCommand {
  name: "monitor status";
  json: boolean;
  address: CollectorAddress;
}

const MONITOR_STATUS_OPTIONS = {
  json: { type: "boolean" },
  host: { type: "string" },
  "monitor-host": { type: "string" },
  port: { type: "string", short: "p" },
  "monitor-port": { type: "string" },
} as const;

/** Each option's flag: an alias and its flag are one flag, given once at most. */
const FLAG_OF: Record<string, string> = {
  json: "json",
  host: "host",
  "monitor-host": "host",
  port: "port",
  "monitor-port": "port",
};

function parseOptions(args: string[]) {
  return parseArgs({ args, strict: true, allowPositionals: false, options: MONITOR_STATUS_OPTIONS, tokens: true });
}

/**
 * Recognises `obs monitor status [--json] [--host H] [--port N]` exactly. Anything else (help,
 * unknown or repeated flags, a port that names no collector) returns null and goes through the
 * full parser, which owns every message and exit code.
 */
export function fastCommandOf(args: readonly string[]): FastCommand | null {
  if (args[0] !== "monitor" || args[1] !== "status") return null;
  let parsed: ReturnType<typeof parseOptions>;
  try {
    parsed = parseOptions(args.slice(2));
  } catch {
    return null;
  }
  const { values, tokens } = parsed;
  // parseArgs keeps the last of a repeated option; the full parser refuses the repeat.
  const given = new Set<string>();
  for (const token of tokens) {
    if (token.kind !== "option") continue;
    const flag = FLAG_OF[token.name];
    if (flag === undefined || given.has(flag)) return null;
    given.add(flag);
  }
  const host = values.host ?? values["monitor-host"];
  const portText = values.port ?? values["monitor-port"];
  const port = portText === undefined ? undefined : collectorPort(portText);
  if (port === null) return null;
  return {
    name: "monitor status",
    json: values.json === true,
    address: {
      ...(host !== undefined ? { host } : {}),
      ...(port !== undefined ? { port } : {}),
    },
  };
}

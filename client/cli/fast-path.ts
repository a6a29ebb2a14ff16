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

/**
 * Recognises `obs monitor status [--json] [--host H] [--port N]` exactly. Anything else (help,
 * unknown or repeated flags, a port that names no collector) returns null and goes through the
 * full parser, which owns every message and exit code.
 */
export function fastCommandOf(args: readonly string[]): FastCommand | null {
  if (args[0] !== "monitor" || args[1] !== "status") return null;
  let parsed: ReturnType<typeof parseArgs<{ args: string[]; options: typeof MONITOR_STATUS_OPTIONS }>>;
  try {
    parsed = parseArgs({ args: args.slice(2), strict: true, allowPositionals: false, options: MONITOR_STATUS_OPTIONS });
  } catch {
    return null;
  }
  const { values } = parsed;
  if (values.host !== undefined && values["monitor-host"] !== undefined) return null;
  if (values.port !== undefined && values["monitor-port"] !== undefined) return null;
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

import type { Argv } from "yargs";
import { DEFAULTS, type SettingFlags } from "./collector-settings.js";

/**
 * The collector's start flags, shared by `obsd` and `obs monitor start`. No yargs defaults:
 * an absent flag must fall through to the environment, then to the built-in default.
 */
export function collectorFlags<T>(argv: Argv<T>) {
  return argv
    .option("host", {
      alias: "monitor-host",
      type: "string",
      describe: "Bind host; loopback only unless you choose otherwise (env OBS_MONITOR_HOST)",
      defaultDescription: DEFAULTS.host,
    })
    .option("port", {
      alias: ["monitor-port", "p"],
      type: "string",
      describe: "Bind port; 0 picks a free one (env OBS_MONITOR_PORT)",
      defaultDescription: String(DEFAULTS.port),
    })
    .option("db", {
      type: "string",
      describe: "Database file",
      defaultDescription: "<state dir>/monitor/telemetry.sqlite",
    })
    .option("project-store", {
      type: "boolean",
      describe:
        "Keep the store under the state folder in a folder named after this project folder, so each project's collector has its own (env OBS_PROJECT_STORE=1)",
    })
    .option("retention", {
      type: "string",
      describe: "Delete telemetry older than this duration (env OBS_RETENTION)",
      defaultDescription: DEFAULTS.retention,
    })
    .option("max-db-size", {
      type: "string",
      describe: "Trim the oldest telemetry to keep the database under this size (env OBS_MAX_DB_SIZE)",
      defaultDescription: DEFAULTS.maxDbSize,
    })
    .option("max-body-size", {
      type: "string",
      describe: "Largest OTLP request body or gRPC message, compressed or inflated (env OBS_MAX_BODY_SIZE)",
      defaultDescription: DEFAULTS.maxBodySize,
    })
    .option("otlp-standard-ports", {
      type: "boolean",
      describe:
        "Also listen on the OTLP standard ports 4317 (gRPC) and 4318 (HTTP), each serving both transports; a taken one is reported and skipped (env OBS_OTLP_STANDARD_PORTS=1)",
    })
    .option("forward", {
      type: "string",
      array: true,
      describe:
        "Also deliver every accepted span, log record and metric point to this OTLP endpoint (base URL; repeatable), at least once, across restarts and upstream outages (env OBS_FORWARD)",
    })
    .option("forward-protocol", {
      type: "string",
      choices: ["http/protobuf", "http/json", "grpc"],
      describe: "How to send to the --forward endpoints (env OBS_FORWARD_PROTOCOL)",
      defaultDescription: "http/protobuf",
    })
    .option("forward-header", {
      type: "string",
      array: true,
      describe:
        "A request header for the --forward endpoints, NAME=VALUE (repeatable), such as an API key: its value is never shown or logged, but a flag is visible to other users in ps, so prefer env OBS_FORWARD_HEADERS",
    });
}

/** The collector's start flags that take a value, by every name they go by. */
const VALUE_FLAGS: ReadonlySet<string> = new Set([
  "host",
  "monitor-host",
  "port",
  "monitor-port",
  "p",
  "db",
  "retention",
  "max-db-size",
  "max-body-size",
  "forward",
  "forward-protocol",
  "forward-header",
]);

/** Whether `arg` is a start flag whose value is the next argument (`--db`, `-p`; not `--db=x`). */
export function takesNextValue(arg: string): boolean {
  const name = /^--([^=]+)$/.exec(arg)?.[1] ?? /^-([a-z])$/i.exec(arg)?.[1];
  return name !== undefined && VALUE_FLAGS.has(name);
}

/**
 * The command line with each value of a start flag that begins with "-" and a digit joined to
 * its flag (`--retention -1d` becomes `--retention=-1d`). yargs takes such an argument for short
 * flags (`-1 -d`) unless it is a plain number, and refused it as unknown arguments instead of
 * the flag's value being refused with its reason. `more` names other flags that take a value.
 */
export function joinDashValues(args: readonly string[], more: readonly string[] = []): string[] {
  const joined: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] as string;
    if (arg === "--") {
      joined.push(...args.slice(i));
      break;
    }
    const name = /^--([^=]+)$/.exec(arg)?.[1] ?? /^-([a-z])$/i.exec(arg)?.[1];
    const next = args[i + 1];
    if (
      name !== undefined &&
      (VALUE_FLAGS.has(name) || more.includes(name)) &&
      next !== undefined &&
      /^-\d/.test(next)
    ) {
      joined.push(`${arg}=${next}`);
      i++;
    } else joined.push(arg);
  }
  return joined;
}

/** The parsed start flags as settings input (absent flags stay undefined). */
export function settingFlagsOf(parsed: Record<string, unknown>): SettingFlags {
  const text = (value: unknown) => (value === undefined ? undefined : String(value));
  // yargs gives a repeatable flag written without a value as []: kept as one empty value, so
  // that it is refused rather than read as absent.
  const list = (value: unknown) => (Array.isArray(value) ? (value.length === 0 ? [""] : value.map(String)) : undefined);
  return {
    host: text(parsed.host),
    port: text(parsed.port),
    db: text(parsed.db),
    // A --no- switch is kept as false: it turns off what the environment would turn on.
    projectStore: typeof parsed.projectStore === "boolean" ? parsed.projectStore : undefined,
    retention: text(parsed.retention),
    maxDbSize: text(parsed.maxDbSize),
    maxBodySize: text(parsed.maxBodySize),
    otlpStandardPorts: typeof parsed.otlpStandardPorts === "boolean" ? parsed.otlpStandardPorts : undefined,
    forward: list(parsed.forward),
    forwardProtocol: text(parsed.forwardProtocol),
    forwardHeaders: list(parsed.forwardHeader),
  };
}

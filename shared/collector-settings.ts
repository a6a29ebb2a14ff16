import { statSync } from "node:fs";
import { isIP } from "node:net";
import { resolve, sep } from "node:path";
import { parseByteSize } from "./byte-size.js";
import { parseDuration } from "./duration.js";
import {
  type ForwardDestination,
  forwardDestinations,
  parseForwardHeader,
  parseForwardProtocol,
  splitForwardHeaders,
  splitForwardUrls,
} from "./forward-settings.js";
import { defaultDbPath, projectDbPath } from "./state-dir.js";

/** The collector's effective configuration. */
export interface CollectorSettings {
  host: string;
  port: number;
  dbPath: string;
  retentionMs: number;
  maxDbBytes: number;
  maxBodyBytes: number;
  /** Also listen on the OTLP standard ports 4317 (gRPC) and 4318 (HTTP), as available. */
  otlpStandardPorts: boolean;
  /** Upstream OTLP endpoints that receive everything stored (forward-settings.ts); none by default. */
  forward: ForwardDestination[];
}

export type SettingSource = "flag" | "env" | "default";

export interface ResolvedSettings {
  settings: CollectorSettings;
  /** Each setting's source; forwarding's protocol and headers have their own. */
  sources: Record<keyof CollectorSettings | "forwardProtocol" | "forwardHeaders", SettingSource>;
}

/** Values as given on the command line; absent when the flag was not passed. */
export interface SettingFlags {
  host?: string | undefined;
  port?: string | number | undefined;
  db?: string | undefined;
  /** Keep the store under the state folder, in a folder of the project's own (also OBS_PROJECT_STORE=1). */
  projectStore?: boolean | undefined;
  retention?: string | undefined;
  maxDbSize?: string | undefined;
  maxBodySize?: string | undefined;
  otlpStandardPorts?: boolean | undefined;
  /** --forward, repeatable. */
  forward?: string[] | undefined;
  forwardProtocol?: string | undefined;
  /** --forward-header K=V, repeatable. */
  forwardHeaders?: string[] | undefined;
}

export const DEFAULTS = {
  host: "127.0.0.1",
  port: 27686,
  retention: "7d",
  maxDbSize: "1GiB",
  maxBodySize: "16MiB",
} as const;

export class SettingsError extends Error {
  override name = "SettingsError";
}

function parsePort(text: string, origin: string): number {
  const port = Number(text);
  if (!/^\d+$/.test(text.trim()) || !Number.isInteger(port) || port < 0 || port > 65535) {
    throw new SettingsError(`invalid port "${text}" (${origin}): use an integer from 0 to 65535`);
  }
  return port;
}

/**
 * A flag given with no value (`--db` last on the line, `--retention=`) is refused rather than
 * read as absent: the user asked for something, and the environment's or the default value
 * would be used in its place without a word.
 */
function givenFlag(flag: string | number | undefined, name: string): string | undefined {
  if (flag === undefined) return undefined;
  const text = String(flag);
  if (text.trim() === "") throw new SettingsError(`--${name} needs a value`);
  return text;
}

function pick(
  flag: string | number | undefined,
  envName: string,
  env: NodeJS.ProcessEnv,
  flagName: string,
): { value: string | undefined; source: SettingSource; origin: string } {
  const given = givenFlag(flag, flagName);
  if (given !== undefined) return { value: given, source: "flag", origin: "flag" };
  const fromEnv = env[envName];
  if (fromEnv !== undefined && fromEnv !== "") return { value: fromEnv, source: "env", origin: envName };
  return { value: undefined, source: "default", origin: "default" };
}

function wrap<T>(parse: () => T, origin: string): T {
  try {
    return parse();
  } catch (error) {
    throw new SettingsError(`${(error as Error).message} (${origin})`);
  }
}

/** Whether OBS_PROJECT_STORE asks for a project store: 1/true or 0/false (unset: no). */
function projectStoreFromEnv(env: NodeJS.ProcessEnv): boolean {
  const text = env.OBS_PROJECT_STORE?.trim().toLowerCase() ?? "";
  if (text === "" || text === "0" || text === "false") return false;
  if (text === "1" || text === "true") return true;
  throw new SettingsError(`invalid OBS_PROJECT_STORE "${env.OBS_PROJECT_STORE}": use 1 or 0`);
}

/** A yes/no environment variable: 1/true or 0/false (unset: no). */
function switchFromEnv(env: NodeJS.ProcessEnv, name: string): boolean {
  const text = env[name]?.trim().toLowerCase() ?? "";
  if (text === "" || text === "0" || text === "false") return false;
  if (text === "1" || text === "true") return true;
  throw new SettingsError(`invalid ${name} "${env[name]}": use 1 or 0`);
}

/** --otlp-standard-ports, else OBS_OTLP_STANDARD_PORTS=1. */
function standardPorts(flags: SettingFlags, env: NodeJS.ProcessEnv): { value: boolean; source: SettingSource } {
  if (flags.otlpStandardPorts !== undefined) return { value: flags.otlpStandardPorts, source: "flag" };
  if (env.OBS_OTLP_STANDARD_PORTS !== undefined && env.OBS_OTLP_STANDARD_PORTS !== "") {
    return { value: switchFromEnv(env, "OBS_OTLP_STANDARD_PORTS"), source: "env" };
  }
  return { value: false, source: "default" };
}

/**
 * `--forward-header` flags of `obs monitor start --detach`, handed to the background collector in
 * its environment rather than on its command line (other users can read that with ps). obsd reads
 * them as the flags they were: not a setting of its own, so not documented as one.
 */
export const FORWARD_HEADER_FLAGS_ENV = "OBS_FORWARD_HEADER_FLAGS";

/** Where each part of the forwarding setting came from. */
interface ForwardSources {
  forward: SettingSource;
  forwardProtocol: SettingSource;
  forwardHeaders: SettingSource;
}

/**
 * --forward (with --forward-protocol and --forward-header), else OBS_FORWARD (with
 * OBS_FORWARD_PROTOCOL and OBS_FORWARD_HEADERS); each part falls back to its environment
 * variable when its flag is absent, and reports its own source. Without a URL forwarding is
 * off: a protocol or header flag is then refused (it asks for something that will not happen),
 * while the environment's, kept in a profile for when it is on, configure nothing.
 */
function forwardSetting(
  flags: SettingFlags,
  env: NodeJS.ProcessEnv,
): { value: ForwardDestination[]; sources: ForwardSources } {
  for (const [name, values] of [
    ["forward", flags.forward],
    ["forward-header", flags.forwardHeaders],
  ] as const) {
    if (values?.some((value) => value.trim() === "")) throw new SettingsError(`--${name} needs a value`);
  }
  const fromFlags = flags.forward ?? [];
  const urls = fromFlags.length > 0 ? fromFlags : splitForwardUrls(env.OBS_FORWARD ?? "");
  const protocolFlag = givenFlag(flags.forwardProtocol, "forward-protocol");
  const handedOver = env[FORWARD_HEADER_FLAGS_ENV] ? splitForwardHeaders(env[FORWARD_HEADER_FLAGS_ENV]) : [];
  const givenHeaders = flags.forwardHeaders && flags.forwardHeaders.length > 0 ? flags.forwardHeaders : handedOver;
  const headerFlags = givenHeaders.length > 0 ? givenHeaders : undefined;
  if (urls.length === 0) {
    if (protocolFlag !== undefined || headerFlags !== undefined) {
      throw new SettingsError("--forward-protocol and --forward-header need a --forward URL");
    }
    return { value: [], sources: { forward: "default", forwardProtocol: "default", forwardHeaders: "default" } };
  }
  const protocol = protocolFlag ?? (env.OBS_FORWARD_PROTOCOL || undefined);
  const headers = headerFlags ?? splitForwardHeaders(env.OBS_FORWARD_HEADERS ?? "");
  const sources: ForwardSources = {
    forward: fromFlags.length > 0 ? "flag" : "env",
    forwardProtocol: protocolFlag !== undefined ? "flag" : protocol !== undefined ? "env" : "default",
    forwardHeaders: headerFlags !== undefined ? "flag" : headers.length > 0 ? "env" : "default",
  };
  // Each part checked on its own, so a refusal names where that part came from.
  if (protocol !== undefined) {
    wrap(() => parseForwardProtocol(protocol), sources.forwardProtocol === "flag" ? "flag" : "OBS_FORWARD_PROTOCOL");
  }
  wrap(() => headers.map(parseForwardHeader), sources.forwardHeaders === "flag" ? "flag" : "OBS_FORWARD_HEADERS");
  const value = wrap(
    () => forwardDestinations(urls, protocol, headers),
    sources.forward === "flag" ? "flag" : "OBS_FORWARD",
  );
  return { value, sources };
}

function isFolder(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

/**
 * The store: --db, else the project's own store (--project-store or OBS_PROJECT_STORE=1, for
 * the folder the collector starts in), else the default one under the state folder.
 */
function storePath(
  flags: SettingFlags,
  env: NodeJS.ProcessEnv,
  cwd: string,
): { value: string | undefined; source: SettingSource } {
  const db = givenFlag(flags.db, "db");
  if (db !== undefined) {
    if (flags.projectStore) throw new SettingsError("give --db or --project-store, not both");
    // resolve() drops the separator: `--db data/` made a store file named `data`. A folder that
    // exists is refused here too, with the same advice, rather than failing to open as a store.
    if (db.endsWith("/") || db.endsWith(sep) || isFolder(resolve(db))) {
      throw new SettingsError(
        `--db ${db} names a folder; give the store's file, such as ${db.endsWith(sep) || db.endsWith("/") ? db : `${db}${sep}`}telemetry.sqlite`,
      );
    }
    return { value: resolve(db), source: "flag" };
  }
  if (flags.projectStore) return { value: projectDbPath(cwd, env), source: "flag" };
  // --no-project-store: the default store, whatever OBS_PROJECT_STORE says.
  if (flags.projectStore === false) return { value: undefined, source: "flag" };
  if (projectStoreFromEnv(env)) return { value: projectDbPath(cwd, env), source: "env" };
  return { value: undefined, source: "default" };
}

/**
 * An IPv6 address without the brackets a URL puts around it (`[::1]`, as OBS_MONITOR_HOST may
 * hold it for the query commands, which take both forms): the address to bind is `::1`.
 */
function unbracketed(host: string): string {
  const inner = /^\[(.*)\]$/.exec(host)?.[1];
  return inner !== undefined && isIP(inner) === 6 ? inner : host;
}

/** Resolves every setting in the spec's order: command-line flag, then environment, then default. */
export function resolveSettings(
  flags: SettingFlags,
  env: NodeJS.ProcessEnv = process.env,
  cwd: string = process.cwd(),
): ResolvedSettings {
  const host = pick(flags.host, "OBS_MONITOR_HOST", env, "host");
  const port = pick(flags.port, "OBS_MONITOR_PORT", env, "port");
  const db = storePath(flags, env, cwd);
  const retention = pick(flags.retention, "OBS_RETENTION", env, "retention");
  const maxDb = pick(flags.maxDbSize, "OBS_MAX_DB_SIZE", env, "max-db-size");
  const maxBody = pick(flags.maxBodySize, "OBS_MAX_BODY_SIZE", env, "max-body-size");
  const otlpStandardPorts = standardPorts(flags, env);
  const forward = forwardSetting(flags, env);
  return {
    settings: {
      host: unbracketed(host.value?.trim() || DEFAULTS.host),
      port: port.value === undefined ? DEFAULTS.port : parsePort(port.value, port.origin),
      dbPath: db.value ?? defaultDbPath(env),
      retentionMs: wrap(() => parseDuration(retention.value ?? DEFAULTS.retention), retention.origin),
      maxDbBytes: wrap(() => parseByteSize(maxDb.value ?? DEFAULTS.maxDbSize), maxDb.origin),
      maxBodyBytes: wrap(() => parseByteSize(maxBody.value ?? DEFAULTS.maxBodySize), maxBody.origin),
      otlpStandardPorts: otlpStandardPorts.value,
      forward: forward.value,
    },
    sources: {
      host: host.source,
      port: port.source,
      dbPath: db.source,
      retentionMs: retention.source,
      maxDbBytes: maxDb.source,
      maxBodyBytes: maxBody.source,
      otlpStandardPorts: otlpStandardPorts.source,
      ...forward.sources,
    },
  };
}

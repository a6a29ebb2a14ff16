import { isIP } from "node:net";
import { DEFAULTS } from "../../shared/collector-settings.js";
import { isWildcardHost } from "../../shared/loopback-host.js";
import { hideUrlPasswords } from "../../shared/url-passwords.js";
import { collectorPort } from "../cli/port-number.js";
import { ArgumentError, LifecycleError } from "../lifecycle/lifecycle-error.js";

export interface TargetFlags {
  baseUrl?: string | undefined;
  host?: string | undefined;
  port?: number | undefined;
}

/** How the collector URL was chosen: a flag, OBS_MONITOR_URL, or discovery of running collectors. */
export type TargetSource = "flag" | "env" | "discovery";

export interface ResolvedTarget {
  baseUrl: string;
  source: TargetSource;
}

/**
 * Why `text` cannot name a collector, or null when it can. Requests are made by resolving
 * `/api/...` against it, which drops any path, query or fragment, so a URL holding one would
 * silently reach another address than the one written; fetch refuses credentials in a URL.
 */
export function collectorUrlProblem(text: string): string | null {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return "not a URL";
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") return "not an http:// or https:// URL";
  if (url.username || url.password) return "a collector URL holds no user name or password";
  // An empty query or fragment (`http://h:1?`) leaves url.search and url.hash empty, but a link
  // built on the text (obs open's) would carry it.
  if (url.pathname !== "/" || url.search || url.hash || /[?#]/.test(text))
    return "give the collector's address only, without a path, query or fragment";
  return null;
}

/** The example every refused collector URL is shown with. */
export const COLLECTOR_URL_EXAMPLE = "http://127.0.0.1:27686";

/**
 * The collector the user named, if any: --base-url, else --host/--port (the one not given taken
 * from OBS_MONITOR_HOST or OBS_MONITOR_PORT, then the default), else OBS_MONITOR_URL.
 * Every command, queries and lifecycle alike, uses a named collector exactly and never falls
 * back to discovery; null means none was named. An OBS_MONITOR_URL that is no collector URL
 * is a configuration error (exit 2); --base-url is checked when it is parsed.
 */
export function explicitTarget(flags: TargetFlags, env: NodeJS.ProcessEnv): ResolvedTarget | null {
  if (flags.baseUrl) return { baseUrl: flags.baseUrl.replace(/\/+$/, ""), source: "flag" };
  if (flags.host !== undefined || flags.port !== undefined) {
    const host = flags.host !== undefined ? hostFromFlag(flags.host) : reachableHost(hostFromEnv(env));
    const port = flags.port ?? portFromEnv(env);
    return { baseUrl: `http://${host.includes(":") ? `[${host}]` : host}:${port}`, source: "flag" };
  }
  if (env.OBS_MONITOR_URL) {
    const problem = collectorUrlProblem(env.OBS_MONITOR_URL);
    if (problem) {
      throw new LifecycleError(
        "invalid_config",
        `OBS_MONITOR_URL=${hideUrlPasswords(env.OBS_MONITOR_URL)}: ${problem}; use the collector's URL, e.g. ${COLLECTOR_URL_EXAMPLE}`,
      );
    }
    return { baseUrl: env.OBS_MONITOR_URL.replace(/\/+$/, ""), source: "env" };
  }
  return null;
}

/**
 * A host as --host or OBS_MONITOR_HOST give it, without brackets: a name or an IP address, an
 * IPv6 one with or without its brackets (`::1`, `[::1]`, as in a URL). Null for what is no host
 * (empty, with a space, a port or a path): put in a URL, it would make no URL, or another one.
 */
export function collectorHost(text: string): string | null {
  const bracketed = /^\[(.*)\]$/.exec(text)?.[1];
  const host = bracketed ?? text;
  const ipv6 = isIP(host) === 6;
  if (bracketed !== undefined ? !ipv6 : !ipv6 && !/^[A-Za-z0-9._-]+$/.test(host)) return null;
  try {
    new URL(`http://${ipv6 ? `[${host}]` : host}/`);
  } catch {
    return null;
  }
  return host;
}

/** What a host must be, for the message that refuses one. */
const HOST_RULE = "not a host name or IP address; give the host alone (an IPv6 address with or without brackets)";

/** --host, checked where the collector is resolved, so the fast path of monitor status checks it too. */
export function hostFromFlag(text: string): string {
  const host = collectorHost(text);
  if (host === null) throw new ArgumentError(`--host ${JSON.stringify(text)}: ${HOST_RULE} and the port with --port`);
  return host;
}

/** OBS_MONITOR_HOST, else the default host: the half of --host/--port the flags left out. */
function hostFromEnv(env: NodeJS.ProcessEnv): string {
  const text = env.OBS_MONITOR_HOST?.trim() || DEFAULTS.host;
  const host = collectorHost(text);
  if (host === null) {
    throw new LifecycleError(
      "invalid_config",
      `OBS_MONITOR_HOST=${JSON.stringify(text)}: ${HOST_RULE} and the port with OBS_MONITOR_PORT`,
    );
  }
  return host;
}

/** Where a collector bound to `host` is reached: one bound to every interface answers on loopback. */
function reachableHost(host: string): string {
  if (host === "::") return "::1";
  return isWildcardHost(host) ? "127.0.0.1" : host;
}

/**
 * OBS_MONITOR_PORT, else the default port: the half of --host/--port the flags left out. Its 0
 * (a start's "any free port") names no collector, so the default stands in for it.
 */
function portFromEnv(env: NodeJS.ProcessEnv): number {
  const text = env.OBS_MONITOR_PORT?.trim() ?? "";
  if (text === "" || /^0+$/.test(text)) return DEFAULTS.port;
  const port = collectorPort(text);
  if (port === null) {
    throw new LifecycleError("invalid_config", `OBS_MONITOR_PORT=${text}: use a port number from 1 to 65535`);
  }
  return port;
}

/** How a named target is described in messages. */
export function targetOrigin(target: ResolvedTarget): string {
  return target.source === "env" ? "from OBS_MONITOR_URL" : "given by flag";
}

import { hideUrlPasswords } from "../../shared/url-passwords.js";
import { LifecycleError } from "../lifecycle/lifecycle-error.js";

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
  if (url.pathname !== "/" || url.search || url.hash) return "give the collector's address only, without a path";
  return null;
}

/** The example every refused collector URL is shown with. */
export const COLLECTOR_URL_EXAMPLE = "http://127.0.0.1:27686";

/**
 * The collector the user named, if any: --base-url, else --host/--port, else OBS_MONITOR_URL.
 * Every command, queries and lifecycle alike, uses a named collector exactly and never falls
 * back to discovery; null means none was named. An OBS_MONITOR_URL that is no collector URL
 * is a configuration error (exit 2); --base-url is checked when it is parsed.
 */
export function explicitTarget(flags: TargetFlags, env: NodeJS.ProcessEnv): ResolvedTarget | null {
  if (flags.baseUrl) return { baseUrl: flags.baseUrl.replace(/\/+$/, ""), source: "flag" };
  if (flags.host !== undefined || flags.port !== undefined) {
    const host = flags.host ?? "127.0.0.1";
    return { baseUrl: `http://${host.includes(":") ? `[${host}]` : host}:${flags.port ?? 27686}`, source: "flag" };
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

/** How a named target is described in messages. */
export function targetOrigin(target: ResolvedTarget): string {
  return target.source === "env" ? "from OBS_MONITOR_URL" : "given by flag";
}

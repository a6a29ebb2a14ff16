import { LifecycleError } from "../lifecycle/lifecycle-error.js";
import { targetCollector } from "../lifecycle/target-collector.js";

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
 * The collector URL a query command talks to. An explicit --base-url, --host/--port or
 * OBS_MONITOR_URL is used exactly as given, never falling back; otherwise discovery chooses.
 */
export async function resolveTarget(flags: TargetFlags, env: NodeJS.ProcessEnv, cwd: string): Promise<ResolvedTarget> {
  if (flags.baseUrl) return { baseUrl: flags.baseUrl.replace(/\/+$/, ""), source: "flag" };
  if (flags.host !== undefined || flags.port !== undefined) {
    const host = flags.host ?? "127.0.0.1";
    return { baseUrl: `http://${host.includes(":") ? `[${host}]` : host}:${flags.port ?? 27686}`, source: "flag" };
  }
  if (env.OBS_MONITOR_URL) return { baseUrl: env.OBS_MONITOR_URL.replace(/\/+$/, ""), source: "env" };
  try {
    return { baseUrl: (await targetCollector(cwd, {}, env)).baseUrl, source: "discovery" };
  } catch (error) {
    if (error instanceof LifecycleError && error.code === "collector_unavailable") {
      throw new LifecycleError(
        "collector_unavailable",
        "no obs collector is running for this folder; start one with: obs monitor start --detach (or give --base-url)",
      );
    }
    throw error;
  }
}

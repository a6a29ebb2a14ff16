import { LifecycleError } from "../lifecycle/lifecycle-error.js";
import { targetCollector } from "../lifecycle/target-collector.js";

export interface TargetFlags {
  baseUrl?: string | undefined;
  host?: string | undefined;
  port?: number | undefined;
}

/**
 * The collector URL a query command talks to. An explicit --base-url, --host/--port or
 * OBS_MONITOR_URL is used exactly as given, never falling back; otherwise discovery chooses.
 */
export async function resolveTarget(flags: TargetFlags, env: NodeJS.ProcessEnv, cwd: string): Promise<string> {
  if (flags.baseUrl) return flags.baseUrl.replace(/\/+$/, "");
  if (flags.host !== undefined || flags.port !== undefined) {
    const host = flags.host ?? "127.0.0.1";
    return `http://${host.includes(":") ? `[${host}]` : host}:${flags.port ?? 27686}`;
  }
  if (env.OBS_MONITOR_URL) return env.OBS_MONITOR_URL.replace(/\/+$/, "");
  try {
    return (await targetCollector(cwd, {}, env)).baseUrl;
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

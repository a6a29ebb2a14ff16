import { LifecycleError } from "../lifecycle/lifecycle-error.js";
import { discoveredCollector } from "../lifecycle/target-collector.js";
import { explicitTarget, type ResolvedTarget, type TargetFlags } from "./explicit-target.js";

export type { ResolvedTarget, TargetFlags, TargetSource } from "./explicit-target.js";

/**
 * The collector URL a query command talks to. An explicit --base-url, --host/--port or
 * OBS_MONITOR_URL is used exactly as given, never falling back; otherwise discovery chooses.
 */
export async function resolveTarget(flags: TargetFlags, env: NodeJS.ProcessEnv, cwd: string): Promise<ResolvedTarget> {
  const named = explicitTarget(flags, env);
  if (named) return named;
  try {
    return { baseUrl: (await discoveredCollector(cwd, env)).baseUrl, source: "discovery" };
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

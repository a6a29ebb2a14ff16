import type { SettingFlags } from "../../shared/collector-settings.js";
import type { RegistryEntry } from "../../shared/control-protocol.js";
import { exposedBindWarning } from "../../shared/loopback-host.js";
import { sameStore } from "../../shared/store-path.js";
import { listensOn } from "../discovery/named-address.js";
import { runningCollectors } from "../discovery/running-collectors.js";
import { portIsFree, settingsOrUsageError, startDetached } from "../lifecycle/detached-start.js";
import { LifecycleError } from "../lifecycle/lifecycle-error.js";

export interface AgentCollector {
  collector: RegistryEntry;
  /** True when this setup started it; false when a running obs collector was reused. */
  started: boolean;
  /** For the user, as `obs monitor start --detach` gives them: an address other machines can reach, an adopted collector's other settings. */
  warnings: string[];
}

/** A running collector reused as it is: warned of only when other machines can reach it. */
function reused(collector: RegistryEntry): AgentCollector {
  const exposed = exposedBindWarning(collector.host);
  return { collector, started: false, warnings: exposed === null ? [] : [exposed] };
}

/** How many ports after the default automatic selection tries before giving up. */
export const PORT_SEARCH_SPAN = 20;

/** What `obs setup agentcli` was asked for: a port, and a store (`--db`, `--project-store`). */
export interface AgentCollectorRequest {
  port?: number | undefined;
  db?: string | undefined;
  projectStore?: boolean | undefined;
}

/**
 * The collector the agent exports to. With `--port`, exactly that port: the obs collector
 * already there, or a new one, or a clear failure when another program holds it. Without it:
 * the collector saved by an earlier setup if it still runs; else, from the default port up,
 * the first port with an obs collector (reused) or nothing listening (started). A port held
 * by any other program is passed over and that program is never touched. A new collector
 * follows the one-collector-per-store rule (startDetached refuses a store in use, exit 2);
 * when a store is named, only a collector on that store is reused.
 */
export async function collectorForAgent(
  request: AgentCollectorRequest,
  savedUrl: string | null,
  env: NodeJS.ProcessEnv,
): Promise<AgentCollector> {
  const store: SettingFlags = { db: request.db, projectStore: request.projectStore };
  const { settings, sources } = settingsOrUsageError({ ...store, port: request.port }, env);
  const fits = (entry: RegistryEntry) => sources.dbPath === "default" || sameStore(entry.dbPath, settings.dbPath);
  const running = (await runningCollectors(env)).filter(fits);
  const obsCollectorOn = (port: number) => running.find((entry) => listensOn(entry, settings.host, port));

  if (request.port !== undefined) {
    const existing = obsCollectorOn(request.port);
    if (existing) return reused(existing);
    return startDetached({ ...store, port: request.port }, env);
  }

  const saved = running.find((entry) => entry.baseUrl === savedUrl);
  if (saved) return reused(saved);

  const last = Math.min(settings.port + PORT_SEARCH_SPAN - 1, 65_535);
  for (let port = settings.port; port <= last; port++) {
    const existing = obsCollectorOn(port);
    if (existing) return reused(existing);
    if (!(await portIsFree(settings.host, port))) continue;
    try {
      return await startDetached({ ...store, port }, env);
    } catch (error) {
      // Another program took the port between the probe and the start: try the next one.
      if (
        error instanceof LifecycleError &&
        error.code === "collector_unavailable" &&
        !(await portIsFree(settings.host, port))
      ) {
        continue;
      }
      throw error;
    }
  }
  throw new LifecycleError(
    "collector_unavailable",
    `ports ${settings.port} to ${last} on ${settings.host} are all held by other programs; choose a port with --port`,
    { host: settings.host, firstPort: settings.port, lastPort: last },
  );
}

import type { CollectorSettings } from "../../shared/collector-settings.js";
import type { ForwardDestination } from "../../shared/forward-settings.js";

/** How `obs monitor start --detach` runs its background obsd: the command line and the environment. */
export interface CollectorInvocation {
  /** obsd's arguments. */
  args: string[];
  env: NodeJS.ProcessEnv;
}

/** The forwarding URLs and protocol as flags (they are no secret). */
function forwardArguments(destinations: ForwardDestination[]): string[] {
  const first = destinations[0];
  if (first === undefined) return [];
  return [...destinations.flatMap((d) => ["--forward", d.url]), "--forward-protocol", first.protocol];
}

/**
 * The forwarding headers go to the collector in its environment, never on its command line,
 * where any user of the machine could read them (ps).
 */
function forwardEnvironment(env: NodeJS.ProcessEnv, destinations: ForwardDestination[]): NodeJS.ProcessEnv {
  const headers = destinations[0]?.headers ?? [];
  if (headers.length === 0) return env;
  return {
    ...env,
    OBS_FORWARD_HEADERS: headers.map(([name, value]) => `${name}=${encodeURIComponent(value)}`).join(","),
  };
}

/** The background collector for `settings`: it must resolve to exactly these settings. */
export function collectorInvocation(settings: CollectorSettings, env: NodeJS.ProcessEnv): CollectorInvocation {
  return {
    args: [
      "--host",
      settings.host,
      "--port",
      String(settings.port),
      "--db",
      settings.dbPath,
      "--retention",
      `${settings.retentionMs}ms`,
      "--max-db-size",
      String(settings.maxDbBytes),
      "--max-body-size",
      String(settings.maxBodyBytes),
      ...(settings.otlpStandardPorts ? ["--otlp-standard-ports"] : []),
      ...forwardArguments(settings.forward),
    ],
    env: forwardEnvironment(env, settings.forward),
  };
}

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
 * The collector the user named, if any: --base-url, else --host/--port, else OBS_MONITOR_URL.
 * Every command, queries and lifecycle alike, uses a named collector exactly and never falls
 * back to discovery; null means none was named.
 */
export function explicitTarget(flags: TargetFlags, env: NodeJS.ProcessEnv): ResolvedTarget | null {
  if (flags.baseUrl) return { baseUrl: flags.baseUrl.replace(/\/+$/, ""), source: "flag" };
  if (flags.host !== undefined || flags.port !== undefined) {
    const host = flags.host ?? "127.0.0.1";
    return { baseUrl: `http://${host.includes(":") ? `[${host}]` : host}:${flags.port ?? 27686}`, source: "flag" };
  }
  if (env.OBS_MONITOR_URL) return { baseUrl: env.OBS_MONITOR_URL.replace(/\/+$/, ""), source: "env" };
  return null;
}

/** How a named target is described in messages. */
export function targetOrigin(target: ResolvedTarget): string {
  return target.source === "env" ? "from OBS_MONITOR_URL" : "given by flag";
}

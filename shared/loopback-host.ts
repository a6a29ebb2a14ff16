import { isIP } from "node:net";

const LOOPBACK_NAMES = new Set(["localhost", "localhost.", "ip6-localhost", "ip6-loopback"]);

/** Whether a host name or address (lower case, IPv6 without brackets) is this machine's loopback. */
export function isLoopbackHost(host: string): boolean {
  if (LOOPBACK_NAMES.has(host) || host.endsWith(".localhost")) return true;
  if (isIP(host) === 4) return host.startsWith("127.");
  return host === "::1" || host === "0:0:0:0:0:0:0:1" || host === "::ffff:127.0.0.1";
}

export function isWildcardHost(host: string): boolean {
  return host === "0.0.0.0" || host === "::" || host === "";
}

/**
 * The warning for a collector bound to `host` when other machines can reach it (every address
 * but loopback), or null. The spec makes such a bind an explicit trust decision: the collector
 * has no authentication, so whoever reaches it can send and read telemetry.
 */
export function exposedBindWarning(host: string): string | null {
  const name = host
    .trim()
    .toLowerCase()
    .replace(/^\[(.*)\]$/, "$1");
  if (isLoopbackHost(name) && !isWildcardHost(name)) return null;
  return `listening on ${host}, which is reachable from other machines; obsd has no authentication.`;
}

import type { RegistryEntry } from "../../shared/control-protocol.js";
import { isLoopbackHost, isWildcardHost } from "../../shared/loopback-host.js";

/** The host (lower case, IPv6 without brackets) and port a collector URL names; null if it is no http URL. */
export function addressOfUrl(baseUrl: string): { host: string; port: number } | null {
  let url: URL;
  try {
    url = new URL(baseUrl);
  } catch {
    return null;
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") return null;
  const host = url.hostname.toLowerCase().replace(/^\[(.*)\]$/, "$1");
  const port = url.port === "" ? (url.protocol === "https:" ? 443 : 80) : Number(url.port);
  return { host, port };
}

/**
 * Whether a registry entry listens at the address a URL names: the same port, and the same
 * host, where two loopback names or addresses (localhost, 127.0.0.1, ::1) count as one and a
 * collector bound to every interface answers on any. The instance id a URL's /api/health
 * reports is not enough on its own: health is unauthenticated, so any local process can
 * repeat another collector's id, and naming that process must not act on the collector.
 */
export function listensAt(entry: Pick<RegistryEntry, "host" | "port">, baseUrl: string): boolean {
  const address = addressOfUrl(baseUrl);
  if (address === null || address.port !== entry.port) return false;
  const bound = entry.host.toLowerCase().replace(/^\[(.*)\]$/, "$1");
  if (bound === address.host || isWildcardHost(bound)) return true;
  return isLoopbackHost(bound) && isLoopbackHost(address.host);
}

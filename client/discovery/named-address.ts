import type { RegistryEntry } from "../../shared/control-protocol.js";
import { isLoopbackHost, isWildcardHost } from "../../shared/loopback-host.js";

/** A host as compared: lower case, an IPv6 address without its brackets. */
const plainHost = (host: string) => host.toLowerCase().replace(/^\[(.*)\]$/, "$1");

/** The host (lower case, IPv6 without brackets) and port a collector URL names; null if it is no http URL. */
export function addressOfUrl(baseUrl: string): { host: string; port: number } | null {
  let url: URL;
  try {
    url = new URL(baseUrl);
  } catch {
    return null;
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") return null;
  const host = plainHost(url.hostname);
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
  return address !== null && listensOn(entry, address.host, address.port);
}

/**
 * Whether a registry entry listens where a host and port reach, by the rule of `listensAt`:
 * the same port, and the same host (any case, IPv6 with or without brackets), two loopback
 * names or addresses counting as one, and a collector bound to every interface answering on
 * any. A start looks for the collector to adopt this way: `--host localhost` finds the one on
 * 127.0.0.1, which a comparison of the text took for a stranger on its port.
 */
export function listensOn(entry: Pick<RegistryEntry, "host" | "port">, host: string, port: number): boolean {
  if (port !== entry.port) return false;
  const bound = plainHost(entry.host);
  const asked = plainHost(host);
  if (bound === asked || isWildcardHost(bound)) return true;
  return isLoopbackHost(bound) && isLoopbackHost(asked);
}

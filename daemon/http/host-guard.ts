import { hostname, networkInterfaces } from "node:os";
import { isLoopbackHost, isWildcardHost } from "../../shared/loopback-host.js";

// Shared with the CLI, which compares a named collector URL with a registry entry.
export { isLoopbackHost, isWildcardHost };

/** The host part of a Host header: `[::1]:27686` -> `::1`, `Example.COM:80` -> `example.com`. */
export function hostOfHeader(header: string): string {
  const value = header.trim().toLowerCase();
  if (value.startsWith("[")) {
    const end = value.indexOf("]");
    return end === -1 ? value : value.slice(1, end);
  }
  const colon = value.lastIndexOf(":");
  return colon === -1 || value.indexOf(":") !== colon ? value : value.slice(0, colon);
}

/**
 * Whether a request's Host header may be answered. Loopback names always; the bound host;
 * and, when bound to every interface, the names in `localNames` (interface addresses and the
 * machine's hostname). Anything else is a browser tricked by DNS rebinding, or a mistake.
 */
export function isAllowedHost(header: string | undefined, boundHost: string, localNames: ReadonlySet<string>): boolean {
  if (header === undefined) return true; // HTTP/1.0 clients may omit it; browsers never do
  const host = hostOfHeader(header);
  if (isLoopbackHost(host)) return true;
  if (host === boundHost.toLowerCase()) return true;
  return isWildcardHost(boundHost) && localNames.has(host);
}

/** Origins of pages served from this machine's loopback names, allowed to export via CORS. */
export function isLoopbackOrigin(origin: string): boolean {
  try {
    const url = new URL(origin);
    return (url.protocol === "http:" || url.protocol === "https:") && isLoopbackHost(hostOfHeader(url.host));
  } catch {
    return false;
  }
}

/** Names this machine answers to, accepted in Host headers when bound to every interface. */
export function localNames(): Set<string> {
  const names = new Set<string>([hostname().toLowerCase()]);
  for (const addresses of Object.values(networkInterfaces())) {
    for (const address of addresses ?? []) names.add(address.address.toLowerCase());
  }
  return names;
}

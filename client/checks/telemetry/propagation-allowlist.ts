/**
 * `--otel-propagate-allowlist`: the hosts that may receive the runner's trace context. Trace
 * context names the caller's trace, so it goes to the app under test and its own services
 * only, never to third parties a page happens to load from. Pure.
 */

export interface AllowedHost {
  /** Lower-case host name or IP literal (IPv6 in brackets, as in URLs). */
  hostname: string;
  /** Decimal port; null allows every port of the host. */
  port: string | null;
}

/** A WebDriver BiDi URL pattern: the browser pauses only the requests that match one. */
export interface InterceptPattern {
  type: "pattern";
  hostname: string;
  port?: string;
}

const DEFAULT_PORTS: Record<string, string> = { "http:": "80", "https:": "443", "ws:": "80", "wss:": "443" };

/**
 * Parses "host[:port],..." (an origin such as http://localhost:3000 is taken for its host and
 * port, its scheme's default port when it names none). Throws an Error naming the first entry
 * that is not a host.
 */
export function parseAllowlist(text: string): AllowedHost[] {
  const hosts: AllowedHost[] = [];
  for (const raw of text.split(",")) {
    const entry = raw.trim();
    if (entry === "") continue;
    const hasScheme = /^[a-z][a-z0-9+.-]*:\/\//i.test(entry);
    const written = hasScheme ? entry : `http://${entry}`;
    const url = !entry.includes("*") && URL.canParse(written) ? new URL(written) : null;
    if (!url || url.hostname === "" || url.username || url.password || url.pathname !== "/" || url.search || url.hash) {
      throw new Error(
        `--otel-propagate-allowlist entry "${entry}" is not a host: give host or host:port, comma-separated (e.g. localhost:3000,api.internal)`,
      );
    }
    // URL drops a port that is its scheme's default (localhost:80); keep the one the user named.
    const named = /:(\d+)\/?$/.exec(entry)?.[1];
    const port = url.port || (named ? String(Number(named)) : hasScheme ? (DEFAULT_PORTS[url.protocol] ?? null) : null);
    const host = { hostname: url.hostname.toLowerCase(), port };
    if (!hosts.some((known) => known.hostname === host.hostname && known.port === host.port)) hosts.push(host);
  }
  return hosts;
}

/** The port a URL connects to, its scheme's default when it names none. */
function effectivePort(url: URL): string {
  return url.port || DEFAULT_PORTS[url.protocol] || "";
}

/** Whether a request to `url` may carry trace context. */
export function isAllowed(url: string, hosts: readonly AllowedHost[]): boolean {
  if (!URL.canParse(url)) return false;
  const target = new URL(url);
  const hostname = target.hostname.toLowerCase();
  return hosts.some(
    (host) => host.hostname === hostname && (host.port === null || host.port === effectivePort(target)),
  );
}

/**
 * The patterns to intercept, so that the browser holds back only allowed requests. A port
 * that is its scheme's default is left to `isAllowed`: such a URL names no port to match.
 */
export function interceptPatterns(hosts: readonly AllowedHost[]): InterceptPattern[] {
  return hosts.map((host) =>
    host.port === null || host.port === "80" || host.port === "443"
      ? { type: "pattern", hostname: host.hostname }
      : { type: "pattern", hostname: host.hostname, port: host.port },
  );
}

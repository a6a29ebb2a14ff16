/**
 * `--otel-propagate`: adds the test's W3C trace context headers to the browser's requests to
 * allowed hosts, through WebDriver BiDi network interception. The browser holds back only
 * requests matching the allowlist's patterns; everything else is never paused or touched.
 */
import type { Browser } from "webdriverio";
import { type AllowedHost, interceptPatterns, isAllowed } from "../telemetry/propagation-allowlist.js";

interface HeaderEntry {
  name: string;
  value: { type: "string"; value: string } | { type: "base64"; value: string };
}

/** The part of BiDi's network.beforeRequestSent event this needs. */
interface BeforeRequestSent {
  isBlocked: boolean;
  request: { request: string; url: string; headers: HeaderEntry[] };
}

/**
 * Starts adding `headers` (traceparent, and tracestate when there is one) to every request the
 * session's browser sends to an allowed host. False when the session has no WebDriver BiDi
 * (a classic session, such as WebKitWebDriver's, cannot intercept requests).
 */
export async function propagateTraceContext(
  browser: Browser,
  hosts: readonly AllowedHost[],
  headers: Record<string, string>,
): Promise<boolean> {
  if (!browser.isBidi) return false;
  const names = new Set(Object.keys(headers).map((name) => name.toLowerCase()));
  const added: HeaderEntry[] = Object.entries(headers).map(([name, value]) => ({
    name,
    value: { type: "string", value },
  }));
  await browser.sessionSubscribe({ events: ["network.beforeRequestSent"] });
  browser.on("network.beforeRequestSent", (event: BeforeRequestSent) => {
    if (!event.isBlocked) return;
    const { request } = event;
    const allowed = isAllowed(request.url, hosts);
    // The page's own trace headers (a traced SPA) give way to the test's, so the trace stays whole.
    const kept = allowed ? request.headers.filter((header) => !names.has(header.name.toLowerCase())) : undefined;
    browser
      .networkContinueRequest({ request: request.request, ...(kept ? { headers: [...kept, ...added] } : {}) })
      // A page that navigated away or closed drops its pending requests; nothing to continue.
      .catch(() => {});
  });
  await browser.networkAddIntercept({ phases: ["beforeRequestSent"], urlPatterns: interceptPatterns(hosts) });
  return true;
}

/**
 * The web UI's addresses: one function per view, so the CLI, the MCP tools and the UI's own
 * router agree on every link. A view's filters live in its query string (the names the query
 * API uses), so a link reproduces what its author saw. Pure.
 */

/** The path of each view; `:traceId` is the one path parameter. */
export const UI_PATHS = {
  services: "/ui/services",
  traces: "/ui/traces",
  trace: "/ui/traces/:traceId",
  logs: "/ui/logs",
  metrics: "/ui/metrics",
  audit: "/ui/audit",
} as const;

export type UiView = keyof typeof UI_PATHS;

/** Query parameters of a view, in the order given; empty and undefined values are left out. */
export type UiQuery = Record<string, string | number | boolean | undefined | null | readonly string[]>;

function origin(baseUrl: string): string {
  return baseUrl.replace(/\/+$/, "");
}

function queryString(query: UiQuery): string {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) {
    if (value === undefined || value === null || value === "") continue;
    if (Array.isArray(value)) for (const item of value) params.append(key, item);
    else params.append(key, String(value));
  }
  const text = params.toString();
  return text ? `?${text}` : "";
}

/** A view's path with its query string, relative to the collector (what the UI navigates to). */
export function uiPath(view: Exclude<UiView, "trace">, query: UiQuery = {}): string {
  return `${UI_PATHS[view]}${queryString(query)}`;
}

/** One trace's waterfall, with a span selected when given. */
export function tracePath(traceId: string, spanId?: string): string {
  return `/ui/traces/${encodeURIComponent(traceId)}${queryString({ span: spanId })}`;
}

/** The UI's home on the collector at `baseUrl` (`http://127.0.0.1:27686`). */
export function uiUrl(baseUrl: string): string {
  return `${origin(baseUrl)}/`;
}

/** One trace's waterfall on the collector at `baseUrl`. */
export function traceUrl(baseUrl: string, traceId: string, spanId?: string): string {
  return `${origin(baseUrl)}${tracePath(traceId, spanId)}`;
}

/** A view on the collector at `baseUrl`. */
export function viewUrl(baseUrl: string, view: Exclude<UiView, "trace">, query: UiQuery = {}): string {
  return `${origin(baseUrl)}${uiPath(view, query)}`;
}

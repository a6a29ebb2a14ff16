/**
 * The UI's router: the address bar is the state. A view is chosen by the path (shared/ui-links.ts
 * names them) and reads its filters from the query string, so a link reproduces a view and the
 * back button undoes a filter. History API only; no router library for six routes.
 */
import { useEffect, useState } from "preact/hooks";
import { UI_PATHS, type UiView } from "../../../shared/ui-links.js";

export interface Route {
  view: UiView | "notFound";
  /** The trace view's id (from `/ui/traces/:traceId`). */
  traceId?: string;
  query: URLSearchParams;
  /** The path and query string, as in the address bar. */
  href: string;
}

const CHANGED = "obs:navigate";

/** The route a path and query string select. `/` and `/ui` show the services view. */
export function matchRoute(pathname: string, search: string): Route {
  const query = new URLSearchParams(search);
  const href = `${pathname}${search}`;
  const path = pathname.replace(/\/+$/, "") || "/";
  if (path === "/" || path === "/ui") return { view: "services", query, href };
  const trace = /^\/ui\/traces\/([^/]+)$/.exec(path);
  if (trace?.[1]) return { view: "trace", traceId: decodedSegment(trace[1]), query, href };
  for (const [view, viewPath] of Object.entries(UI_PATHS)) {
    if (viewPath === path) return { view: view as UiView, query, href };
  }
  return { view: "notFound", query, href };
}

/**
 * A path segment as text. A malformed escape (`%zz`) is kept as written instead of throwing,
 * which would blank the page: the view then asks for it and shows the collector's 400.
 */
function decodedSegment(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

function currentRoute(): Route {
  return matchRoute(location.pathname, location.search);
}

/** Goes to `href` (a path with its query string) without reloading the page. */
export function navigate(href: string, options: { replace?: boolean } = {}): void {
  if (href === `${location.pathname}${location.search}`) return;
  if (options.replace) history.replaceState(null, "", href);
  else history.pushState(null, "", href);
  window.dispatchEvent(new Event(CHANGED));
}

/**
 * Changes some of the current view's query parameters (null or "" removes one) and keeps the
 * rest. Filters typed by a person replace the entry (`replace`), a deliberate choice pushes one.
 */
export function setQuery(
  changes: Record<string, string | number | null | undefined | readonly string[]>,
  options: { replace?: boolean } = {},
): void {
  const query = new URLSearchParams(location.search);
  for (const [key, value] of Object.entries(changes)) {
    query.delete(key);
    if (Array.isArray(value)) for (const item of value) query.append(key, item);
    else if (value !== null && value !== undefined && value !== "") query.set(key, String(value));
  }
  const search = query.toString();
  navigate(`${location.pathname}${search ? `?${search}` : ""}`, options);
}

/** The current route; re-renders on navigation and on the back and forward buttons. */
export function useRoute(): Route {
  const [route, setRoute] = useState(currentRoute);
  useEffect(() => {
    const update = () => setRoute(currentRoute());
    window.addEventListener("popstate", update);
    window.addEventListener(CHANGED, update);
    return () => {
      window.removeEventListener("popstate", update);
      window.removeEventListener(CHANGED, update);
    };
  }, []);
  return route;
}

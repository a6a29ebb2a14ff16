/**
 * The web UI's static files (client/web, bundled into dist/web by scripts/build-web.js): the
 * page at `/` and at every `/ui/...` view path (the page's router picks the view, so a deep link
 * loads), and its assets under `/ui/assets/`. Every answer, errors included, carries a
 * Content-Security-Policy that lets the page load only its own script and stylesheet and talk
 * only to this collector: it shows telemetry (text any program can send), so nothing it shows
 * may run or load anything.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import express, { type RequestHandler, type Response, Router } from "express";
import { packagePath } from "../../shared/package-root.js";
import { HttpError } from "./http-error.js";

/** The policy of every UI answer: own files only; no inline script or style, no frames, no forms elsewhere. */
export const UI_CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join("; ");

/** The bundle's files under assets/, as index.html names them (scripts/build-web.js writes them). */
const BUNDLE_FILES = ["app.js", "app.css"];

function secure(res: Response): void {
  res.setHeader("Content-Security-Policy", UI_CONTENT_SECURITY_POLICY);
  res.setHeader("X-Content-Type-Options", "nosniff");
  res.setHeader("Referrer-Policy", "no-referrer");
  res.setHeader("X-Frame-Options", "DENY");
  // A rebuilt UI is picked up on the next load: the files are small and local.
  res.setHeader("Cache-Control", "no-cache");
}

/** Whether `path` is one the UI answers: `/`, `/ui` and everything under `/ui/`. */
export function isUiPath(path: string): boolean {
  return path === "/" || path === "/ui" || path.startsWith("/ui/");
}

/**
 * Sets the UI's headers on every answer to a UI path before anything answers it, so its errors
 * (404, 405, 503, and the Host guard's 403 where this runs before the guard) carry them too: an
 * error body is a page a browser may render as well.
 */
export const secureUiAnswers: RequestHandler = (req, res, next) => {
  if (isUiPath(req.path)) secure(res);
  next();
};

export function uiRoutes(webRoot: string = packagePath("dist", "web")): Router {
  const router = Router();
  router.use(secureUiAnswers);
  const indexPath = join(webRoot, "index.html");
  let page: Buffer | undefined;
  const notBuilt = (missing: string) =>
    new HttpError(
      503,
      `the web UI is not built in this installation (${missing} is missing): run npm run build; the query API at /api still answers`,
    );

  // Every path under /ui but the assets folder (with or without its slash) is a view: the page.
  router.get(["/", "/ui", "/ui/", /^\/ui\/(?!assets(?:\/|$)).+/], (_req, res, next) => {
    if (page === undefined) {
      if (!existsSync(indexPath)) return next(notBuilt(indexPath));
      page = readFileSync(indexPath);
    }
    res.type("html").send(page);
  });
  router.use(
    "/ui/assets",
    express.static(join(webRoot, "assets"), {
      index: false,
      // The folder is no page: 404, not a redirect to a listing that does not exist.
      redirect: false,
      dotfiles: "ignore",
      etag: true,
    }),
  );
  // A file of the bundle that express.static did not find is a build left undone, not a wrong
  // path: without it the page would load blank.
  for (const name of BUNDLE_FILES) {
    router.get(`/ui/assets/${name}`, (_req, _res, next) => next(notBuilt(join(webRoot, "assets", name))));
  }
  router.all(["/", "/ui", /^\/ui\/.*/], (req, _res, next) => {
    if (req.method === "GET" || req.method === "HEAD") return next(new HttpError(404, `no UI file ${req.path}`));
    next(new HttpError(405, `use GET for ${req.path}`, { Allow: "GET, HEAD" }));
  });
  return router;
}

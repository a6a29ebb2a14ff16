/**
 * `obs show-report`'s server: the report directory's files on 127.0.0.1, read-only. Only files
 * inside the folder are answered (a path that climbs out, or a link that leads out: 403), only GET and
 * HEAD, only to a Host of 127.0.0.1 or localhost (421 otherwise), and every answer carries the HTML
 * report's Content-Security-Policy, so a report shows page and model text without anything in it
 * being able to run or load from elsewhere.
 */
import { realpathSync } from "node:fs";
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join, sep } from "node:path";
import express, { type ErrorRequestHandler, type Response } from "express";
import { HTML_REPORT, REPORT_CONTENT_SECURITY_POLICY } from "./html-report.js";

export interface ReportServer {
  /** `http://127.0.0.1:PORT`. */
  origin: string;
  /** The page: `<origin>/report/index.html`. */
  url: string;
  close(): Promise<void>;
}

function secure(res: Response): void {
  res.setHeader("Content-Security-Policy", REPORT_CONTENT_SECURITY_POLICY);
  res.setHeader("X-Content-Type-Options", "nosniff");
  res.setHeader("Referrer-Policy", "no-referrer");
  // A new run rewrites the report in place: always the files as they are now.
  res.setHeader("Cache-Control", "no-cache");
}

/**
 * Whether `path` (a request's path, still encoded) names a file that is really inside `root`: send
 * refuses `..`, but a symbolic link in the folder could still lead out of it. Paths that do not
 * exist or do not decode pass here; send answers them (404, 400).
 */
function leavesFolder(root: string, path: string): boolean {
  let real: string;
  try {
    real = realpathSync(join(root, decodeURIComponent(path)));
  } catch {
    return false;
  }
  return real !== root && !real.startsWith(root + sep);
}

/** Whether a request's Host header is `127.0.0.1:PORT` or `localhost:PORT` (any case); no Host is refused too. */
export function isReportHost(header: string | undefined, port: number): boolean {
  const host = header?.trim().toLowerCase();
  return host === `127.0.0.1:${port}` || host === `localhost:${port}`;
}

/** Serves `dir` on 127.0.0.1 at `port` (0: a free one). */
export async function serveReport(dir: string, port = 0): Promise<ReportServer> {
  const root = realpathSync(dir);
  const app = express();
  app.disable("x-powered-by");
  let listeningPort = 0;
  // DNS rebinding: a site in the user's browser that points its own name at 127.0.0.1 would send
  // its own name as Host. Only this server's loopback names are answered (as obsd's host guard does).
  app.use((req, res, next) => {
    if (isReportHost(req.headers.host, listeningPort)) return next();
    secure(res);
    res.status(421).type("text/plain").send("obs show-report answers only 127.0.0.1 and localhost\n");
  });
  app.use((req, res, next) => {
    if (req.method === "GET" || req.method === "HEAD") return next();
    res.status(405).setHeader("Allow", "GET, HEAD").type("text/plain").send("obs show-report only reads files\n");
  });
  app.get("/", (_req, res) => res.redirect(`/${HTML_REPORT}`));
  app.use((req, _res, next) => next(leavesFolder(root, req.path) ? { status: 403 } : undefined));
  // Errors (a path out of the folder: 403; a missing file: 404) go to the handler below.
  app.use(
    express.static(root, {
      index: ["index.html"],
      dotfiles: "deny",
      redirect: false,
      fallthrough: false,
      setHeaders: secure,
    }),
  );
  const answerError: ErrorRequestHandler = (error: { status?: number; statusCode?: number }, _req, res, _next) => {
    const status = error.status ?? error.statusCode ?? 500;
    secure(res);
    res
      .status(status)
      .type("text/plain")
      .send(status === 404 ? "not found\n" : status === 403 ? "forbidden\n" : "error\n");
  };
  app.use(answerError);
  const server: Server = await new Promise((resolve, reject) => {
    const listening = app.listen(port, "127.0.0.1", () => resolve(listening));
    listening.once("error", reject);
  });
  listeningPort = (server.address() as AddressInfo).port;
  const origin = `http://127.0.0.1:${listeningPort}`;
  return {
    origin,
    url: `${origin}/${HTML_REPORT}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

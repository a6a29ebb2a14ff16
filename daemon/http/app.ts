import type { IncomingMessage, ServerResponse } from "node:http";
import { parse as parseQueryString } from "node:querystring";
import express, { type ErrorRequestHandler, type Express, type RequestHandler } from "express";
import type { QueryApi } from "../../shared/query-api.js";
import { mcpRoutes } from "../mcp/mcp-route.js";
import { type QueryCaller, QueryFailure } from "../query/query-client.js";
import { DOCS_CONTENT_SECURITY_POLICY, docsPage } from "./docs-page.js";
import { type HealthOptions, healthRoutes } from "./health-route.js";
import { isAllowedHost, localNames } from "./host-guard.js";
import { HttpError, sendErrorJson } from "./http-error.js";
import { exportListener, type IngestOptions, ingestRoutes } from "./ingest-routes.js";
import { openApiDocument } from "./openapi.js";
import { queryRoutes } from "./query-routes.js";
import { secureUiAnswers, uiRoutes } from "./ui-routes.js";

export interface AppOptions {
  boundHost: string;
  ingest: IngestOptions;
  health: HealthOptions;
  queries: QueryCaller;
  /** What `POST /mcp` answers from: the query API in process (daemon/mcp/in-process-api.ts). */
  queryApi: QueryApi;
}

/** Whether a request's Host header may be answered (host-guard.ts). */
type HostAllowed = (host: string | undefined) => boolean;

function hostGuard(hostAllowed: HostAllowed): RequestHandler {
  return (req, _res, next) => {
    if (hostAllowed(req.headers.host)) return next();
    next(
      new HttpError(
        403,
        `Host "${req.headers.host}" is not allowed: obsd answers loopback names and its bound host only (DNS rebinding protection)`,
      ),
    );
  };
}

const sendError: ErrorRequestHandler = (error, _req, res, _next) => {
  if (error instanceof QueryFailure) {
    console.error(`obsd: query failed: ${error.message}`);
    sendErrorJson(res, new HttpError(500, `query failure: ${error.message}`));
    return;
  }
  sendErrorJson(res, error);
};

/** The collector's HTTP surface: the express wiring only; the work is done by the routers. */
function createApp(options: AppOptions, hostAllowed: HostAllowed): Express {
  const app = express();
  app.disable("x-powered-by");
  app.set("etag", false);
  // Every parameter: express's own parser keeps the first 1,000 and drops the rest without a
  // word (a filter or limit after them was ignored). Node's cap on a request's head bounds them.
  app.set("query parser", (text: string) => parseQueryString(text, "&", "=", { maxKeys: 0 }));
  // Before the guard, so its refusal of a UI path carries the UI's headers as every UI answer does.
  app.use(secureUiAnswers);
  app.use(hostGuard(hostAllowed));
  app.use(ingestRoutes(options.ingest));
  app.use(healthRoutes(options.health));
  app.use(queryRoutes(options.queries));
  app.use(mcpRoutes(options.queryApi, options.health.baseUrl));

  const document = openApiDocument();
  const page = docsPage(document);
  app.get("/openapi.json", (_req, res) => {
    res.json(document);
  });
  app.get("/docs", (_req, res) => {
    res.setHeader("Content-Security-Policy", DOCS_CONTENT_SECURITY_POLICY);
    res.setHeader("X-Content-Type-Options", "nosniff");
    res.type("html").send(page);
  });
  app.all(["/openapi.json", "/docs"], (req, _res, next) =>
    next(new HttpError(405, `use GET for ${req.path}`, { Allow: "GET, HEAD" })),
  );
  app.use(uiRoutes());
  app.use((req, _res, next) => next(new HttpError(404, `no route ${req.method} ${req.path}; see /docs`)));
  app.use(sendError);
  return app;
}

/**
 * What the collector's servers answer with: the express app, with OTLP exports sent straight to
 * their handler (exportListener), behind the same Host guard.
 */
export function createRequestListener(options: AppOptions): (req: IncomingMessage, res: ServerResponse) => void {
  const names = localNames();
  const hostAllowed: HostAllowed = (host) => isAllowedHost(host, options.boundHost, names);
  return exportListener(createApp(options, hostAllowed), options.ingest, hostAllowed);
}

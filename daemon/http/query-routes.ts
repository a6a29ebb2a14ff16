import type { Response, Router } from "express";
import express from "express";
import { QueryError, type QueryErrorCode } from "../../shared/query-error.js";
import { matchQueryPath, parseQueryRequest } from "../../shared/query-request.js";
import type { QueryMethod, QueryRequestOf } from "../../shared/query-types.js";
import { nowNs } from "../../shared/time.js";
import type { QueryCaller } from "../query/query-client.js";
import { HttpError } from "./http-error.js";

/** How HTTP renders the query service's errors. */
const STATUS: Record<QueryErrorCode, number> = { invalid_argument: 400, not_found: 404 };

function sendJson(res: Response, status: number, body: string): void {
  res.status(status).type("application/json").send(body);
}

/**
 * The `/api` query routes: the path and query string are parsed through the route table
 * (shared/query-routes.ts) into a typed request, the query thread runs the service method and
 * answers with finished JSON, and a QueryError becomes its status here. A store failure goes
 * to the app's error handler (500).
 */
export function queryRoutes(queries: QueryCaller): Router {
  const router = express.Router();
  router.use("/api", (req, res, next) => {
    const path = `/api${req.path}`;
    const route = matchQueryPath(path);
    if (!route) return next();
    if (req.method !== "GET" && req.method !== "HEAD") {
      return next(new HttpError(405, `use GET for ${path}`, { Allow: "GET, HEAD" }));
    }
    const refuse = (error: unknown) => {
      if (!(error instanceof QueryError)) return next(error);
      sendJson(res, STATUS[error.code], JSON.stringify({ error: error.message }));
    };
    let args: QueryRequestOf<QueryMethod>;
    try {
      args = parseQueryRequest(route.method, route.path, req.query as Record<string, unknown>);
    } catch (error) {
      return refuse(error);
    }
    queries.call(route.method, args, nowNs()).then((body) => sendJson(res, 200, body), refuse);
  });
  return router;
}

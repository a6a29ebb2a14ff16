import type { Router } from "express";
import express from "express";
import { nowNs } from "../../shared/time.js";
import { isQueryRoute } from "../query/api-handlers.js";
import type { QueryClient } from "../query/query-client.js";
import { HttpError } from "./http-error.js";

/**
 * The `/api` query routes: forwarded to the query thread, which answers with finished JSON.
 * This thread parses nothing and serializes nothing for them.
 */
export function queryProxy(queries: QueryClient): Router {
  const router = express.Router();
  router.use("/api", (req, res, next) => {
    const path = `/api${req.path}`;
    if (!isQueryRoute(path)) return next();
    if (req.method !== "GET" && req.method !== "HEAD") {
      return next(new HttpError(405, `use GET for ${path}`, { Allow: "GET" }));
    }
    queries.answer(path, req.query as Record<string, unknown>, nowNs()).then((answer) => {
      if (!answer) return next();
      res.status(answer.status).type("application/json").send(answer.body);
    }, next);
  });
  return router;
}

/**
 * `POST /mcp`: the MCP server over Streamable HTTP, stateless. Each request gets a fresh
 * server and transport (the SDK's stateless pattern), answered as JSON rather than an SSE
 * stream, and both are closed when the response ends: no session outlives its request, so
 * nothing accumulates in obsd. The SDK loads on the first /mcp request, not at start-up.
 * The app-wide Host guard (daemon/http/app.ts) runs before this router.
 */
import express, { type Router } from "express";
import type { QueryApi } from "../../shared/query-api.js";
import { HttpError } from "../http/http-error.js";

/** The largest JSON-RPC body accepted: tool arguments are small; this only stops abuse. */
const MAX_BODY = "1mb";

type Loaded = [typeof import("./mcp-server.js"), typeof import("@modelcontextprotocol/sdk/server/streamableHttp.js")];

export function mcpRoutes(api: QueryApi): Router {
  const router = express.Router();
  let loading: Promise<Loaded> | undefined;
  const load = () => {
    loading ??= Promise.all([import("./mcp-server.js"), import("@modelcontextprotocol/sdk/server/streamableHttp.js")]);
    return loading;
  };

  router.post("/mcp", express.json({ limit: MAX_BODY }), async (req, res, next) => {
    try {
      const [{ createMcpServer }, { StreamableHTTPServerTransport }] = await load();
      const server = createMcpServer(api);
      const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
      res.on("close", () => {
        void transport.close();
        void server.close();
      });
      await server.connect(transport);
      await transport.handleRequest(req, res, req.body);
    } catch (error) {
      if (res.headersSent) res.destroy(error as Error);
      else next(error);
    }
  });
  router.all("/mcp", (_req, _res, next) =>
    next(
      new HttpError(405, "use POST for /mcp (MCP Streamable HTTP, stateless: no SSE stream, no sessions)", {
        Allow: "POST",
      }),
    ),
  );
  return router;
}

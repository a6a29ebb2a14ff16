/**
 * `POST /mcp`: the MCP server over Streamable HTTP, stateless. Each request gets a fresh
 * server and transport (the SDK's stateless pattern), answered as JSON rather than an SSE
 * stream, and both are closed when the response ends: no session outlives its request, so
 * nothing accumulates in obsd. The SDK loads on the first /mcp request, not at start-up.
 * The app-wide Host guard (daemon/http/app.ts) runs before this router; this one also refuses
 * a request whose Origin is not a loopback page (the MCP specification asks Streamable HTTP
 * servers to check Origin against DNS rebinding), answers a body that is not JSON with a
 * JSON-RPC parse error, and refuses batches (removed from MCP in its 2025-06-18 revision: one
 * POST holding a hundred whole-trace calls would hold the query thread for minutes).
 */
import express, {
  type ErrorRequestHandler,
  type NextFunction,
  type Request,
  type RequestHandler,
  type Response,
  type Router,
} from "express";
import type { QueryApi } from "../../shared/query-api.js";
import { isLoopbackOrigin } from "../http/host-guard.js";
import { HttpError } from "../http/http-error.js";

/** The largest JSON-RPC body accepted: tool arguments are small; this only stops abuse. */
const MAX_BODY = "1mb";

type Loaded = [typeof import("./mcp-server.js"), typeof import("@modelcontextprotocol/sdk/server/streamableHttp.js")];

/** A JSON-RPC error answer to a message whose id could not be read. */
function jsonRpcError(code: number, message: string) {
  return { jsonrpc: "2.0", id: null, error: { code, message } };
}

/**
 * Web pages may call /mcp only from this machine's loopback names (an MCP inspector on
 * localhost), with the CORS answers their browser asks for; clients without Origin may.
 */
const refuseForeignOrigin: RequestHandler = (req, res, next) => {
  const origin = req.headers.origin;
  if (origin === undefined) return next();
  if (!isLoopbackOrigin(origin)) {
    return next(
      new HttpError(403, `origin ${origin} is not allowed to call /mcp: only pages on a loopback address may`),
    );
  }
  res.setHeader("Access-Control-Allow-Origin", origin);
  res.setHeader("Vary", "Origin");
  res.setHeader("Access-Control-Allow-Methods", "POST, OPTIONS");
  res.setHeader("Access-Control-Allow-Headers", "Content-Type, Accept, Mcp-Protocol-Version, Mcp-Session-Id");
  res.setHeader("Access-Control-Expose-Headers", "Mcp-Session-Id, Mcp-Protocol-Version");
  res.setHeader("Access-Control-Max-Age", "600");
  if (req.method === "OPTIONS") {
    res.status(204).end();
    return;
  }
  next();
};

/** A body express.json could not parse: a JSON-RPC parse error (-32700), as MCP clients expect. */
const parseErrorAsJsonRpc: ErrorRequestHandler = (error, _req, res, next) => {
  if ((error as { type?: string }).type !== "entity.parse.failed") return next(error);
  res.status(400).json(jsonRpcError(-32700, `the body is not JSON: ${(error as Error).message}`));
};

/**
 * `baseUrl` is asked per request: the collector's own address once it listens (the tools link
 * to its web UI), not the request's Host.
 */
export function mcpRoutes(api: QueryApi, baseUrl: () => string): Router {
  const router = express.Router();
  let loading: Promise<Loaded> | undefined;
  const load = () => {
    loading ??= Promise.all([import("./mcp-server.js"), import("@modelcontextprotocol/sdk/server/streamableHttp.js")]);
    return loading;
  };

  router.options("/mcp", refuseForeignOrigin);
  router.post(
    "/mcp",
    refuseForeignOrigin,
    express.json({ limit: MAX_BODY }),
    parseErrorAsJsonRpc,
    async (req: Request, res: Response, next: NextFunction) => {
      if (Array.isArray(req.body)) {
        res.status(400).json(jsonRpcError(-32600, "batches are not supported: send one JSON-RPC message per request"));
        return;
      }
      try {
        const [{ createMcpServer }, { StreamableHTTPServerTransport }] = await load();
        const server = createMcpServer({ api, baseUrl: baseUrl() });
        const transport = new StreamableHTTPServerTransport({
          sessionIdGenerator: undefined,
          enableJsonResponse: true,
        });
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
    },
  );
  router.all("/mcp", (_req, _res, next) =>
    next(
      new HttpError(405, "use POST for /mcp (MCP Streamable HTTP, stateless: no SSE stream, no sessions)", {
        Allow: "POST",
      }),
    ),
  );
  return router;
}

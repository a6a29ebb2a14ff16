/**
 * The MCP server obs serves over stdio (`obs mcp`, over ObsClient) and Streamable HTTP (obsd's
 * `POST /mcp`, over the query thread): tools, prompts and one resource, on the SDK's low-level
 * `Server`. Not `McpServer`: it takes zod schemas and converts them to JSON Schema (adding
 * `$schema`, which some clients refuse); obs's tool schemas are plain JSON Schema literals,
 * checked here with ajv, so what a client is shown is exactly what the tests check.
 */
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import {
  CallToolRequestSchema,
  ErrorCode,
  GetPromptRequestSchema,
  ListPromptsRequestSchema,
  ListResourcesRequestSchema,
  ListToolsRequestSchema,
  ReadResourceRequestSchema,
  type Tool,
} from "@modelcontextprotocol/sdk/types.js";
import { OBS_VERSION } from "../../shared/package-root.js";
import type { QueryApi } from "../../shared/query-api.js";
import { MCP_PROMPTS } from "./mcp-prompts.js";
import { COLLECTOR_RESOURCE, collectorDocument } from "./mcp-resources.js";
import type { AnyMcpTool } from "./mcp-tool.js";
import { callMcpTool, failureText } from "./mcp-tool-call.js";
import { MCP_TOOLS } from "./tool-list.js";

/** A collector's query API and its address (the tools link to its web UI). */
export interface ToolTarget {
  api: QueryApi;
  baseUrl: string;
}

/**
 * Where the server's QueryApi comes from: one fixed API (obsd, in process), or a function
 * asked again for every call (`obs mcp`: the collector is found per call, so one started after
 * the server is used by the next call; a failure to find one is that call's tool error).
 */
export type ApiSource = ToolTarget | (() => Promise<ToolTarget>);

export interface McpServerOptions {
  /** The tools served; MCP_TOOLS unless a test serves others. */
  tools?: readonly AnyMcpTool[];
}

const INSTRUCTIONS =
  "obs holds the telemetry (traces, logs, metrics) this project's programs sent to its local collector. Start with list_services, then search traces, spans or logs; read a trace's outline before the details of its spans. Every answer is bounded by max_bytes and ends with `next`, the calls most worth making next with their arguments; a truncated answer carries the `continuation` that fetches the rest. The prompt investigate_latest_error walks through an error.";

/**
 * A JSON-RPC error for the SDK to send. Not an McpError: its message already carries the
 * "MCP error CODE:" prefix, and the client adds its own, so clients would show it twice.
 */
function protocolError(code: ErrorCode, message: string): Error {
  return Object.assign(new Error(message), { code });
}

/** The tool as tools/list shows it. */
function listed(tool: AnyMcpTool): Tool {
  return {
    name: tool.name,
    title: tool.title,
    description: tool.description,
    inputSchema: tool.inputSchema as Tool["inputSchema"],
    outputSchema: tool.outputSchema as Tool["outputSchema"],
  };
}

/** A new server over `api`; connect it to one transport. */
export function createMcpServer(api: ApiSource, options: McpServerOptions = {}): Server {
  const tools = options.tools ?? MCP_TOOLS;
  const byName = new Map(tools.map((tool) => [tool.name, tool]));
  const targetNow = typeof api === "function" ? api : async () => api;
  const server = new Server(
    { name: "obs", title: "obs: local telemetry", version: OBS_VERSION },
    { capabilities: { tools: {}, prompts: {}, resources: {} }, instructions: INSTRUCTIONS },
  );

  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: tools.map(listed) }));
  server.setRequestHandler(CallToolRequestSchema, async (request) => {
    const tool = byName.get(request.params.name);
    if (!tool) {
      throw protocolError(
        ErrorCode.InvalidParams,
        `unknown tool "${request.params.name}"; the tools are ${tools.map((t) => t.name).join(", ")}`,
      );
    }
    return callMcpTool(tool, request.params.arguments ?? {}, targetNow);
  });

  server.setRequestHandler(ListPromptsRequestSchema, async () => ({
    prompts: MCP_PROMPTS.map(({ name, title, description, arguments: args }) => ({
      name,
      title,
      description,
      arguments: args,
    })),
  }));
  server.setRequestHandler(GetPromptRequestSchema, async (request) => {
    const prompt = MCP_PROMPTS.find((candidate) => candidate.name === request.params.name);
    if (!prompt) {
      throw protocolError(
        ErrorCode.InvalidParams,
        `unknown prompt "${request.params.name}"; the prompts are ${MCP_PROMPTS.map((p) => p.name).join(", ")}`,
      );
    }
    return { description: prompt.description, messages: prompt.messages(request.params.arguments ?? {}) };
  });

  server.setRequestHandler(ListResourcesRequestSchema, async () => ({ resources: [COLLECTOR_RESOURCE] }));
  server.setRequestHandler(ReadResourceRequestSchema, async (request) => {
    if (request.params.uri !== COLLECTOR_RESOURCE.uri) {
      throw protocolError(
        ErrorCode.InvalidParams,
        `unknown resource "${request.params.uri}"; the resource is ${COLLECTOR_RESOURCE.uri}`,
      );
    }
    let document: Record<string, unknown>;
    try {
      const { api: targetApi, baseUrl } = await targetNow();
      document = collectorDocument(await targetApi.health(), baseUrl);
    } catch (error) {
      throw protocolError(ErrorCode.InternalError, failureText("reading obs://collector", error));
    }
    return {
      contents: [
        { uri: COLLECTOR_RESOURCE.uri, mimeType: COLLECTOR_RESOURCE.mimeType, text: JSON.stringify(document, null, 2) },
      ],
    };
  });
  return server;
}

import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { ErrorCode, McpError } from "@modelcontextprotocol/sdk/types.js";
import { expect } from "chai";
import { MAX_MAX_BYTES, toolInput, toolOutput } from "../../../daemon/mcp/budget.js";
import { type ApiSource, createMcpServer, type McpServerOptions } from "../../../daemon/mcp/mcp-server.js";
import type { AnyMcpTool } from "../../../daemon/mcp/mcp-tool.js";
import { MAX_RESULT_TEXT_CHARS } from "../../../daemon/mcp/mcp-tool-call.js";
import { MCP_TOOLS } from "../../../daemon/mcp/tool-list.js";
import { listServices } from "../../../daemon/mcp/tools/services.js";
import type { HealthRecord } from "../../../shared/api-records.js";
import { OBS_VERSION } from "../../../shared/package-root.js";
import type { QueryApi } from "../../../shared/query-api.js";
import { callTool, type StoreApi, storeApi, TOOL_BASE_URL } from "../../helpers/mcp-tools.js";
import { hexId, traceRequest } from "../../helpers/otlp-builders.js";
import { type TestStore, testStore } from "../../helpers/store.js";

const MS = 1_000_000n;
const NOW = 1_800_000_000_000n * MS;
const SERVICES = ["cart", "checkout", "payments"];

/** The text block of a tool result. */
function textOf(result: unknown): string {
  const blocks = (result as { content: { type: string; text: string }[] }).content;
  expect(blocks).to.have.length(1);
  expect(blocks[0]?.type).to.equal("text");
  return blocks[0]?.text as string;
}

/** The text of a prompt's first message. */
function promptText(prompt: { messages: { content: unknown }[] }): string {
  return (prompt.messages[0] as { content: { text: string } }).content.text;
}

/** An API error as QueryApi methods reject with. */
function apiError(code: string, message: string): Error {
  return Object.assign(new Error(message), { code });
}

/** A QueryApi whose listServices rejects with `error` (nothing else is asked). */
function failingApi(error: Error): QueryApi {
  return { listServices: () => Promise.reject(error) } as unknown as QueryApi;
}

describe("MCP server (SDK client over an in-memory transport)", () => {
  let store: TestStore;
  let query: StoreApi;
  const health = {
    instanceId: "a".repeat(32),
    pid: 4242,
    cwd: "/projects/shop",
    baseUrl: "http://127.0.0.1:27686",
    counts: { services: 3, servicesLookback: "15m", traces: 3, spans: 3, logs: 0, series: 0, points: 0 },
    versions: { obs: "9.9.9", node: "v20", sqlite: "3", schema: 1 },
    configuration: { db: { value: "/secret/place.sqlite", source: "flag" } },
  } as unknown as Partial<HealthRecord>;
  const clients: Client[] = [];

  /** A client of a server over `api` (asked per call when a function), for the collector at TOOL_BASE_URL. */
  async function connect(api: QueryApi | (() => Promise<QueryApi>), options: McpServerOptions = {}): Promise<Client> {
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    const source: ApiSource =
      typeof api === "function"
        ? async () => ({ api: await api(), baseUrl: TOOL_BASE_URL })
        : { api, baseUrl: TOOL_BASE_URL };
    await createMcpServer(source, options).connect(serverSide);
    const client = new Client({ name: "test", version: "1.0.0" });
    await client.connect(clientSide);
    clients.push(client);
    return client;
  }

  beforeEach(() => {
    store = testStore();
    SERVICES.forEach((service, i) => {
      store.writeTraces(
        traceRequest(service, [
          { traceId: hexId(i + 1, 16), spanId: hexId(i + 1, 8), startNs: NOW - BigInt(i + 1) * 1000n * MS },
        ]),
      );
    });
    query = storeApi(store.path, health);
    query.setNow(NOW);
  });
  afterEach(async () => {
    for (const client of clients.splice(0)) await client.close();
    query.close();
    store.close();
  });

  it("introduces itself as obs, at the package's version, with tools, prompts and resources", async () => {
    const client = await connect(query.api);
    expect(client.getServerVersion()).to.include({ name: "obs", version: OBS_VERSION });
    expect(client.getServerCapabilities()).to.include.keys("tools", "prompts", "resources");
    expect(client.getInstructions()).to.include("list_services");
  });

  it("lists every tool with its schemas exactly as declared", async () => {
    const client = await connect(query.api);
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name)).to.deep.equal(MCP_TOOLS.map((tool) => tool.name));
    for (const tool of MCP_TOOLS) {
      const listed = tools.find((candidate) => candidate.name === tool.name);
      expect(listed).to.deep.equal({
        name: tool.name,
        title: tool.title,
        description: tool.description,
        inputSchema: tool.inputSchema,
        outputSchema: tool.outputSchema,
      });
      expect(JSON.stringify(listed)).not.to.match(/"\$(schema|ref|defs)"/);
    }
  });

  it("answers a call with the structured answer, and the summary and the JSON as text", async () => {
    const client = await connect(query.api);
    const expected = await callTool(listServices, { max_bytes: 2048 }, query.api);
    const result = await client.callTool({ name: "list_services", arguments: { max_bytes: 2048 } });
    expect(result.isError).to.not.equal(true);
    expect(result.structuredContent).to.deep.equal(expected.structured);
    expect((result.structuredContent as { services: { name: string }[] }).services.map((s) => s.name)).to.have.members(
      SERVICES,
    );
    expect(textOf(result)).to.equal(`${expected.summary}\n\n${JSON.stringify(expected.structured)}`);
  });

  it("refuses invalid arguments as a tool error naming the argument and the rule", async () => {
    const client = await connect(query.api);
    const small = await client.callTool({ name: "list_services", arguments: { max_bytes: 10 } });
    expect(small.isError).to.equal(true);
    expect(small.structuredContent).to.equal(undefined);
    expect(textOf(small))
      .to.match(/list_services/)
      .and.match(/"max_bytes" must be >= 1024/);
    const unknown = await client.callTool({ name: "list_services", arguments: { servce: "cart" } });
    expect(unknown.isError).to.equal(true);
    expect(textOf(unknown)).to.include('unknown argument "servce"').and.include("lookback, offset, max_bytes");
    const wrongType = await client.callTool({ name: "list_services", arguments: { lookback: 15 } });
    expect(textOf(wrongType)).to.include('"lookback" must be string');
    // An empty attribute key is the tool's argument that is wrong, not the API's parameter "attr.".
    const emptyKey = await client.callTool({ name: "query_metric", arguments: { name: "m", attributes: { "": "x" } } });
    expect(emptyKey.isError).to.equal(true);
    expect(textOf(emptyKey)).to.include('argument "attributes" has an empty key').and.not.include("attr.");
  });

  it("answers an unknown tool with a protocol error (InvalidParams)", async () => {
    const client = await connect(query.api);
    const failure = await client.callTool({ name: "no_such_tool", arguments: {} }).catch((error: unknown) => error);
    expect(failure).to.be.instanceOf(McpError);
    expect((failure as McpError).code).to.equal(ErrorCode.InvalidParams);
    expect((failure as McpError).message)
      .to.include("no_such_tool")
      .and.include("list_services");
  });

  it("renders the API's refusal as a tool error with the API's message", async () => {
    const client = await connect(query.api);
    const apiMessage = await query.api.listServices({ lookback: "48h" }).catch((error: Error) => error.message);
    const result = await client.callTool({ name: "list_services", arguments: { lookback: "48h" } });
    expect(result.isError).to.equal(true);
    expect(textOf(result)).to.equal(apiMessage);
  });

  it("adds what to do to an API error, by its code", async () => {
    const unavailable = apiError("collector_unavailable", "no collector answers at http://127.0.0.1:9 (ECONNREFUSED)");
    const down = await (await connect(failingApi(unavailable))).callTool({ name: "list_services", arguments: {} });
    expect(down.isError).to.equal(true);
    expect(textOf(down)).to.include(unavailable.message).and.include("`obs monitor start` in the project folder");

    const missing = apiError("not_found", "no trace 0123");
    const gone = await (await connect(failingApi(missing))).callTool({ name: "list_services", arguments: {} });
    expect(textOf(gone)).to.include(missing.message).and.include("search_traces").and.include("search_spans");
  });

  it("asks an API source again for every call, so a collector found later is used", async () => {
    let available = false;
    const source = async (): Promise<QueryApi> => {
      if (!available) throw apiError("collector_unavailable", "no obs collector is running for this folder");
      return query.api;
    };
    const client = await connect(source);
    const before = await client.callTool({ name: "list_services", arguments: {} });
    expect(before.isError).to.equal(true);
    expect(textOf(before)).to.include("no obs collector is running for this folder");
    available = true;
    const after = await client.callTool({ name: "list_services", arguments: {} });
    expect(after.isError).to.not.equal(true);
    expect((after.structuredContent as { services: unknown[] }).services).to.have.length(SERVICES.length);
  });

  it("answers a tool error instead of a result whose text is over the size guard", async () => {
    const huge: AnyMcpTool = {
      name: "huge",
      title: "Huge",
      description: "An answer that breaks its budget",
      inputSchema: toolInput({}),
      outputSchema: toolOutput({ blob: { type: "string" } }, ["blob"]),
      run: async () => ({
        structured: { blob: "x", truncated: false, next: [] },
        summary: "x".repeat(MAX_RESULT_TEXT_CHARS),
      }),
    };
    const client = await connect(query.api, { tools: [huge] });
    const result = await client.callTool({ name: "huge", arguments: {} });
    expect(result.isError).to.equal(true);
    expect(textOf(result)).to.include("bug").and.include(String(MAX_RESULT_TEXT_CHARS));
    expect(textOf(result).length).to.be.below(1000);
  });

  it("holds an answer to max_bytes by cutting its long strings, or refuses it when that cannot", async () => {
    const wordy = (blob: string): AnyMcpTool => ({
      name: "wordy",
      title: "Wordy",
      description: "An answer whose header alone passes the budget",
      inputSchema: toolInput({}),
      outputSchema: toolOutput({ names: { type: "array", items: { type: "string" } } }, ["names"]),
      run: async () => ({
        structured: { names: Array.from({ length: 12 }, (_, i) => `${i}${blob}`), truncated: false, next: [] },
        summary: "names",
      }),
    });
    const client = await connect(query.api, { tools: [wordy("n".repeat(2000))] });
    const result = await client.callTool({ name: "wordy", arguments: { max_bytes: 4096 } });
    expect(result.isError).to.not.equal(true);
    expect(Buffer.byteLength(JSON.stringify(result.structuredContent))).to.be.at.most(4096);
    const names = (result.structuredContent as { names: string[]; truncated: boolean }).names;
    expect(names).to.have.length(12);
    expect(names[0]).to.match(/^0n+…\[\+\d+ chars\]$/);
    expect((result.structuredContent as { truncated: boolean }).truncated).to.equal(true);

    const tooMany = await connect(query.api, {
      tools: [
        {
          ...wordy("n"),
          run: async () => ({ structured: { names: Array(2000).fill("n"), truncated: false, next: [] }, summary: "s" }),
        },
      ],
    });
    const refused = await tooMany.callTool({ name: "wordy", arguments: { max_bytes: 1024 } });
    expect(refused.isError).to.equal(true);
    expect(textOf(refused)).to.include("max_bytes").and.include("1024");
  });

  it("never offers a continuation that repeats the call it answers", async () => {
    const stuck: AnyMcpTool = {
      name: "stuck",
      title: "Stuck",
      description: "A tool that cannot fit one item and offers the same call again",
      inputSchema: toolInput({ cursor: { type: "string" } }),
      outputSchema: toolOutput({ items: { type: "array" } }, ["items"]),
      run: async (args: Record<string, unknown>) => ({
        structured: {
          items: [],
          truncated: true,
          continuation: { tool: "stuck", arguments: { ...args }, why: "the rest" },
          next: [],
        },
        summary: "nothing fitted",
      }),
    };
    const client = await connect(query.api, { tools: [stuck] });
    const small = await client.callTool({ name: "stuck", arguments: { cursor: "c", max_bytes: 2048 } });
    const raised = (small.structuredContent as { continuation: { arguments: Record<string, unknown> } }).continuation;
    expect(raised.arguments).to.deep.equal({ cursor: "c", max_bytes: MAX_MAX_BYTES });
    const largest = await client.callTool({ name: "stuck", arguments: { cursor: "c", max_bytes: MAX_MAX_BYTES } });
    expect(largest.structuredContent).to.not.have.property("continuation");
    expect((largest.structuredContent as { truncated: boolean }).truncated).to.equal(true);
  });

  it("knows a continuation repeats the call when the tool rebuilt its arguments (offset 0, ids lowercased)", async () => {
    const rebuilt: AnyMcpTool = {
      name: "rebuilt",
      title: "Rebuilt",
      description: "A tool that answers no rows and continues from offset 0 with its id lowercased",
      inputSchema: toolInput({ trace_id: { type: "string" }, offset: { type: "integer" } }),
      outputSchema: toolOutput({ rows: { type: "array" } }, ["rows"]),
      run: async (args: Record<string, unknown>) => ({
        structured: {
          rows: [],
          truncated: true,
          continuation: {
            tool: "rebuilt",
            arguments: { trace_id: String(args.trace_id).toLowerCase(), offset: 0, max_bytes: args.max_bytes },
            why: "the rest",
          },
          next: [],
        },
        summary: "no row fitted",
      }),
    };
    const client = await connect(query.api, { tools: [rebuilt] });
    const first = await client.callTool({
      name: "rebuilt",
      arguments: { trace_id: "ABCDEF0123456789", max_bytes: 2048 },
    });
    const continuation = (first.structuredContent as { continuation: { arguments: Record<string, unknown> } })
      .continuation;
    expect(continuation.arguments.max_bytes).to.equal(MAX_MAX_BYTES);
  });

  it("reports a failed resource read and an unknown tool once, without a repeated error prefix", async () => {
    const down = apiError("collector_unavailable", "no collector answers at http://127.0.0.1:9");
    const client = await connect({ health: () => Promise.reject(down) } as unknown as QueryApi);
    const failure = await client.readResource({ uri: "obs://collector" }).catch((error: unknown) => error);
    expect((failure as Error).message).to.include("no collector answers");
    expect((failure as Error).message.match(/MCP error/g)).to.have.length(1);
    const unknown = await client.callTool({ name: "nope", arguments: {} }).catch((error: unknown) => error);
    expect((unknown as Error).message.match(/MCP error/g)).to.have.length(1);
  });

  it("serves the investigate_latest_error prompt, walking the tools in order", async () => {
    const client = await connect(query.api);
    const { prompts } = await client.listPrompts();
    expect(prompts.map((prompt) => prompt.name)).to.deep.equal(["investigate_latest_error"]);
    expect(prompts[0]?.arguments).to.deep.equal([
      { name: "service", description: "Only errors of this service (optional)", required: false },
    ]);
    const prompt = await client.getPrompt({ name: "investigate_latest_error", arguments: { service: "checkout" } });
    const text = promptText(prompt);
    expect(text).to.include('"checkout"');
    const order = [
      "list_services",
      "search_traces",
      "get_trace_errors",
      "get_trace_outline",
      "get_span_details",
      "search_logs",
    ].map((tool) => text.indexOf(tool));
    expect(order.every((at) => at >= 0)).to.equal(true);
    expect([...order].sort((a, b) => a - b)).to.deep.equal(order);
    const plain = await client.getPrompt({ name: "investigate_latest_error" });
    expect(promptText(plain)).not.to.include("checkout");
  });

  it("serves obs://collector: identity, version, counts and the web UI from the health document, no configuration", async () => {
    const client = await connect(query.api);
    const { resources } = await client.listResources();
    expect(resources.map((resource) => [resource.uri, resource.mimeType])).to.deep.equal([
      ["obs://collector", "application/json"],
    ]);
    const read = await client.readResource({ uri: "obs://collector" });
    const content = read.contents[0] as { uri: string; mimeType: string; text: string };
    expect(content.mimeType).to.equal("application/json");
    const document = JSON.parse(content.text) as Record<string, unknown>;
    expect(document).to.include({ instanceId: health.instanceId, version: "9.9.9", pid: 4242, cwd: "/projects/shop" });
    expect(document.counts).to.deep.equal(health.counts);
    expect(document.ui).to.equal(`${TOOL_BASE_URL}/`);
    expect(content.text).not.to.include("/secret/place.sqlite");
    const unknown = await client.readResource({ uri: "obs://nothing" }).catch((error: unknown) => error);
    expect((unknown as McpError).code).to.equal(ErrorCode.InvalidParams);
  });
});

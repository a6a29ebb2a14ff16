import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { expect } from "chai";
import { MCP_TOOLS } from "../../daemon/mcp/tool-list.js";
import type { ServiceRecord } from "../../shared/api-records.js";
import { type CollectorProcess, startCollectorProcess } from "../helpers/collector-process.js";
import { http, postJson } from "../helpers/http.js";
import { hexId, logsRequest, traceRequest } from "../helpers/otlp-builders.js";

const MS = 1_000_000n;
const SERVICES = ["mcp-http-cart", "mcp-http-payments"];
/** A failed payment: a root span and its failing child, with a log of the failure. */
const FAILED = { traceId: hexId(40, 16), rootId: hexId(40, 8), childId: hexId(41, 8), message: "card declined" };

const INITIALIZE = {
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "1" } },
};
const MCP_ACCEPT = { accept: "application/json, text/event-stream" };

describe("obsd's POST /mcp (Streamable HTTP, with the SDK's client)", function () {
  this.timeout(60_000);
  let obsd: CollectorProcess;
  let client: Client;

  before(async () => {
    obsd = await startCollectorProcess();
    const start = BigInt(Date.now() - 60_000) * MS;
    for (const [i, service] of SERVICES.entries()) {
      const response = await postJson(
        `${obsd.url}/v1/traces`,
        traceRequest(service, [
          { traceId: hexId(i + 1, 16), spanId: hexId(i + 1, 8), startNs: start + BigInt(i) * MS },
        ]),
      );
      expect(response.status).to.equal(200);
    }
    const failedAt = start + 10n * MS;
    const failed = traceRequest("mcp-http-payments", [
      { traceId: FAILED.traceId, spanId: FAILED.rootId, name: "POST /pay", startNs: failedAt, durationNs: 20n * MS },
      {
        traceId: FAILED.traceId,
        spanId: FAILED.childId,
        parentSpanId: FAILED.rootId,
        name: "charge",
        startNs: failedAt + MS,
        durationNs: 5n * MS,
        error: true,
        statusMessage: FAILED.message,
      },
    ]);
    expect((await postJson(`${obsd.url}/v1/traces`, failed)).status).to.equal(200);
    const log = logsRequest("mcp-http-payments", [
      {
        timeNs: failedAt + 2n * MS,
        severityNumber: 17,
        body: `charge failed: ${FAILED.message}`,
        traceId: FAILED.traceId,
        spanId: FAILED.childId,
      },
    ]);
    expect((await postJson(`${obsd.url}/v1/logs`, log)).status).to.equal(200);
    client = new Client({ name: "mcp-http-test", version: "1.0.0" });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${obsd.url}/mcp`)));
  });
  after(async () => {
    await client?.close();
    await obsd?.stop();
  });

  it("lists every tool with its declared schemas", async () => {
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name)).to.deep.equal(MCP_TOOLS.map((tool) => tool.name));
    for (const tool of MCP_TOOLS) {
      const listed = tools.find((candidate) => candidate.name === tool.name);
      expect(listed?.inputSchema).to.deep.equal(tool.inputSchema);
      expect(listed?.outputSchema).to.deep.equal(tool.outputSchema);
    }
  });

  it("answers list_services with what /api/services answers", async () => {
    const api = (await http(`${obsd.url}/api/services`)).json<{ data: ServiceRecord[] }>();
    expect(api.data.map((service) => service.name)).to.have.members(SERVICES);
    const result = await client.callTool({ name: "list_services", arguments: {} });
    expect(result.isError).to.not.equal(true);
    const structured = result.structuredContent as { services: { name: string }[]; truncated: boolean };
    // The same services, named as every MCP answer field is (snake_case), newest activity first
    // as the tool says (the API lists them by name).
    const newestFirst = [...api.data].sort((a, b) =>
      a.lastSeenAt === b.lastSeenAt ? (a.name < b.name ? -1 : 1) : a.lastSeenAt < b.lastSeenAt ? 1 : -1,
    );
    expect(structured.services).to.deep.equal(
      newestFirst.map((service) => ({ name: service.name, last_seen_at: service.lastSeenAt })),
    );
    expect(structured.truncated).to.equal(false);
  });

  it("finds the failed trace with search_traces, and its error and log by following next", async () => {
    const search = await client.callTool({ name: "search_traces", arguments: { status: "error" } });
    expect(search.isError).to.not.equal(true);
    const found = search.structuredContent as {
      traces: { trace_id: string }[];
      next: { tool: string; arguments: Record<string, unknown> }[];
    };
    expect(found.traces.map((trace) => trace.trace_id)).to.deep.equal([FAILED.traceId]);
    const next = found.next.find((call) => call.tool === "get_trace_errors");
    expect(next?.arguments).to.deep.equal({ trace_id: FAILED.traceId });
    const errors = await client.callTool({ name: "get_trace_errors", arguments: next?.arguments ?? {} });
    expect(errors.isError).to.not.equal(true);
    const answer = errors.structuredContent as {
      error_spans: { span_id: string; status_message: string | null }[];
      logs: { span_id: string | null; body: string }[];
    };
    expect(answer.error_spans.map((span) => [span.span_id, span.status_message])).to.deep.equal([
      [FAILED.childId, FAILED.message],
    ]);
    expect(answer.logs.map((log) => [log.span_id, log.body])).to.deep.equal([
      [FAILED.childId, `charge failed: ${FAILED.message}`],
    ]);
  });

  it("refuses a bad argument as a tool error, with the API's message", async () => {
    const result = await client.callTool({ name: "list_services", arguments: { lookback: "48h" } });
    const api = (await http(`${obsd.url}/api/services?lookback=48h`)).json<{ error: string }>();
    expect(result.isError).to.equal(true);
    expect((result.content as { text: string }[])[0]?.text).to.equal(api.error);
  });

  it("serves obs://collector from the collector's health", async () => {
    const health = (await http(`${obsd.url}/api/health`)).json<{ instanceId: string; baseUrl: string }>();
    const read = await client.readResource({ uri: "obs://collector" });
    const document = JSON.parse((read.contents[0] as { text: string }).text) as Record<string, unknown>;
    expect(document).to.include({ instanceId: health.instanceId, baseUrl: obsd.url });
    expect((document.counts as { spans: number }).spans).to.equal(SERVICES.length + 2);
  });

  it("answers JSON without a session: a stateless server", async () => {
    const response = await postJson(`${obsd.url}/mcp`, INITIALIZE, MCP_ACCEPT);
    expect(response.status).to.equal(200);
    expect(String(response.headers["content-type"])).to.match(/^application\/json/);
    expect(response.headers["mcp-session-id"]).to.equal(undefined);
    expect(response.json().result.serverInfo.name).to.equal("obs");
  });

  it("refuses a foreign Host, as every route does", async () => {
    const response = await postJson(`${obsd.url}/mcp`, INITIALIZE, { ...MCP_ACCEPT, host: "attacker.example" });
    expect(response.status).to.equal(403);
    expect(response.json().error).to.match(/not allowed/);
  });

  it("refuses a request from a web page of another origin, and takes loopback pages and clients without Origin", async () => {
    const foreign = await postJson(`${obsd.url}/mcp`, INITIALIZE, { ...MCP_ACCEPT, origin: "http://evil.example" });
    expect(foreign.status).to.equal(403);
    expect(foreign.json().error).to.match(/origin/i);
    const local = await postJson(`${obsd.url}/mcp`, INITIALIZE, { ...MCP_ACCEPT, origin: "http://127.0.0.1:3000" });
    expect(local.status).to.equal(200);
    expect(local.headers["access-control-allow-origin"]).to.equal("http://127.0.0.1:3000");
    // A loopback page's browser asks first (its JSON body and MCP headers need a preflight).
    const preflight = await http(`${obsd.url}/mcp`, {
      method: "OPTIONS",
      headers: {
        origin: "http://localhost:6274",
        "access-control-request-method": "POST",
        "access-control-request-headers": "content-type, mcp-protocol-version",
      },
    });
    expect(preflight.status).to.equal(204);
    expect(preflight.headers["access-control-allow-origin"]).to.equal("http://localhost:6274");
    expect(String(preflight.headers["access-control-allow-headers"])).to.match(/Mcp-Protocol-Version/i);
    const foreignPreflight = await http(`${obsd.url}/mcp`, {
      method: "OPTIONS",
      headers: { origin: "http://evil.example" },
    });
    expect(foreignPreflight.status).to.equal(403);
    expect(foreignPreflight.headers["access-control-allow-origin"]).to.equal(undefined);
  });

  it("answers malformed JSON and batches with JSON-RPC errors", async () => {
    const malformed = await http(`${obsd.url}/mcp`, {
      method: "POST",
      headers: { ...MCP_ACCEPT, "content-type": "application/json" },
      body: '{"jsonrpc": "2.0", "id": 1, "method": ',
    });
    expect(malformed.status).to.equal(400);
    expect(malformed.json()).to.deep.include({ jsonrpc: "2.0", id: null });
    expect(malformed.json().error.code).to.equal(-32700);
    const batch = await postJson(`${obsd.url}/mcp`, [INITIALIZE, { ...INITIALIZE, id: 2 }], MCP_ACCEPT);
    expect(batch.status).to.equal(400);
    expect(batch.json().error.code).to.equal(-32600);
    expect(batch.json().error.message).to.match(/batch/);
  });

  it("answers GET and DELETE with 405 and Allow: POST", async () => {
    for (const method of ["GET", "DELETE"]) {
      const response = await http(`${obsd.url}/mcp`, { method, headers: MCP_ACCEPT });
      expect(response.status, method).to.equal(405);
      expect(response.headers.allow, method).to.equal("POST");
      expect(response.json().error).to.include("use POST for /mcp");
    }
  });

  it("refuses a body over 1 MiB", async () => {
    const big = { ...INITIALIZE, params: { ...INITIALIZE.params, padding: "x".repeat(1024 * 1024) } };
    const response = await postJson(`${obsd.url}/mcp`, big, MCP_ACCEPT);
    expect(response.status).to.equal(413);
  });
});

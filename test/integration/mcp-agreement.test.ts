/**
 * One query service behind every interface: the same questions asked through MCP (obsd's
 * /mcp with the SDK's Streamable HTTP client, and `obs mcp` over stdio with its stdio client),
 * the HTTP API and the CLI return the same traces, spans and logs, the same ids in the same order,
 * page after page, and those are the ones the data set written here says they must be (traces
 * and spans by id; logs by body, as their ids are content hashes, and by id across the interfaces).
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { expect } from "chai";
import { packagePath } from "../../shared/package-root.js";
import { type CollectorProcess, startCollectorProcess } from "../helpers/collector-process.js";
import { http, postJson } from "../helpers/http.js";
import { runObs } from "../helpers/obs-cli.js";
import { hexId, logsRequest, type SpanSpec, traceRequest } from "../helpers/otlp-builders.js";

const MS = 1_000_000n;
const SERVICES = ["agree-web", "agree-orders", "agree-db"];
const TRACES = 15;
/** Small pages, so that every interface's paging is compared too. */
const PAGE = 4;

interface WrittenSpan {
  traceId: string;
  spanId: string;
  service: string;
  name: string;
  startNs: bigint;
  error: boolean;
  route: string;
}

interface WrittenLog {
  traceId: string;
  spanId: string;
  service: string;
  timeNs: bigint;
  severityNumber: number;
  body: string;
}

/** Each trace: a web root, an orders child and a db grandchild; every third trace fails in db. */
function dataSet(nowNs: bigint): { spans: WrittenSpan[]; logs: WrittenLog[] } {
  const spans: WrittenSpan[] = [];
  const logs: WrittenLog[] = [];
  for (let t = 0; t < TRACES; t++) {
    const traceId = hexId(7000 + t, 16);
    const startNs = nowNs - BigInt(TRACES - t) * 20_000n * MS;
    const route = t % 2 === 0 ? "/cart" : "/checkout";
    for (const [depth, service] of SERVICES.entries()) {
      spans.push({
        traceId,
        spanId: hexId(7000 + t * 10 + depth, 8),
        service,
        name: depth === 0 ? `GET ${route}` : depth === 1 ? "reserve order" : "INSERT orders",
        startNs: startNs + BigInt(depth) * MS,
        error: depth === 2 && t % 3 === 0,
        route,
      });
    }
    const failed = t % 3 === 0;
    logs.push({
      traceId,
      spanId: hexId(7000 + t * 10 + 2, 8),
      service: "agree-db",
      timeNs: startNs + 5n * MS,
      severityNumber: failed ? 17 : 9,
      body: failed ? `insert of order ${t} declined: constraint violated` : `order ${t} stored`,
    });
  }
  return { spans, logs };
}

/** Newest first, ties by id: the order every list of the API promises. */
function newestFirst<T>(items: T[], time: (item: T) => bigint, id: (item: T) => string): T[] {
  return [...items].sort((a, b) => (time(a) === time(b) ? id(a).localeCompare(id(b)) : time(b) > time(a) ? 1 : -1));
}

/** Field names of an item's id and of the value checked against the data set, per interface. */
interface ItemFields {
  id: string;
  checked: string;
}

interface Question {
  what: string;
  mcp: { tool: string; arguments: Record<string, unknown>; list: "traces" | "spans" | "logs" };
  api: string;
  cli: string[];
  /** The API's field names (camelCase); MCP's (snake_case, as the CLI's JSON); the CLI's. */
  fields: ItemFields;
  mcpFields: ItemFields;
  cliFields: ItemFields;
  /** The checked values, in order. */
  expected: string[];
}

const TRACE_FIELDS = {
  fields: { id: "traceId", checked: "traceId" },
  mcpFields: { id: "trace_id", checked: "trace_id" },
  cliFields: { id: "trace_id", checked: "trace_id" },
};
const SPAN_FIELDS = {
  fields: { id: "spanId", checked: "spanId" },
  mcpFields: { id: "span_id", checked: "span_id" },
  cliFields: { id: "span_id", checked: "span_id" },
};
const LOG_FIELDS = {
  fields: { id: "logId", checked: "body" },
  mcpFields: { id: "log_id", checked: "body" },
  cliFields: { id: "log_id", checked: "body" },
};

/** An item as compared: its id and its checked value. */
function itemOf(item: Record<string, unknown>, fields: ItemFields): [string, string] {
  return [String(item[fields.id]), String(item[fields.checked])];
}

describe("MCP, the HTTP API and the CLI agree (one query service behind all three)", function () {
  this.timeout(120_000);
  let obsd: CollectorProcess;
  let httpClient: Client;
  let stdioClient: Client;
  let questions: Question[];

  before(async () => {
    obsd = await startCollectorProcess();
    const { spans, logs } = dataSet(BigInt(Date.now()) * MS);
    for (const service of SERVICES) {
      const own: SpanSpec[] = spans
        .filter((span) => span.service === service)
        .map((span) => ({
          traceId: span.traceId,
          spanId: span.spanId,
          name: span.name,
          startNs: span.startNs,
          error: span.error,
          attributes: { "http.route": span.route },
        }));
      expect((await postJson(`${obsd.url}/v1/traces`, traceRequest(service, own))).status).to.equal(200);
    }
    const logResponse = await postJson(`${obsd.url}/v1/logs`, logsRequest("agree-db", logs));
    expect(logResponse.status).to.equal(200);

    const spanIds = (keep: (span: WrittenSpan) => boolean) =>
      newestFirst(
        spans.filter(keep),
        (s) => s.startNs,
        (s) => s.spanId,
      ).map((s) => s.spanId);
    const logBodies = (keep: (log: WrittenLog) => boolean) =>
      newestFirst(
        logs.filter(keep),
        (l) => l.timeNs,
        (l) => l.body,
      ).map((l) => l.body);
    const traceIds = (keep: (root: WrittenSpan) => boolean) =>
      newestFirst(
        spans.filter((span) => span.service === SERVICES[0] && keep(span)),
        (s) => s.startNs,
        (s) => s.traceId,
      ).map((s) => s.traceId);
    const failedTraces = new Set(spans.filter((span) => span.error).map((span) => span.traceId));
    questions = [
      {
        what: "traces with a span of one service",
        mcp: { tool: "search_traces", arguments: { service: "agree-db" }, list: "traces" },
        api: "/api/traces?service=agree-db",
        cli: ["traces", "--service", "agree-db"],
        ...TRACE_FIELDS,
        expected: traceIds(() => true),
      },
      {
        what: "error traces",
        mcp: { tool: "search_traces", arguments: { status: "error" }, list: "traces" },
        api: "/api/traces?status=error",
        cli: ["traces", "--status", "error"],
        ...TRACE_FIELDS,
        expected: traceIds((root) => failedTraces.has(root.traceId)),
      },
      {
        what: "traces by attribute",
        mcp: { tool: "search_traces", arguments: { attributes: { "http.route": "/cart" } }, list: "traces" },
        api: "/api/traces?attr.http.route=%2Fcart",
        cli: ["traces", "attr.http.route=/cart"],
        ...TRACE_FIELDS,
        expected: traceIds((root) => root.route === "/cart"),
      },
      {
        what: "spans of one service",
        mcp: { tool: "search_spans", arguments: { service: "agree-orders" }, list: "spans" },
        api: "/api/spans/search?service=agree-orders",
        cli: ["spans", "--service", "agree-orders"],
        ...SPAN_FIELDS,
        expected: spanIds((span) => span.service === "agree-orders"),
      },
      {
        what: "error spans",
        mcp: { tool: "search_spans", arguments: { status: "error" }, list: "spans" },
        api: "/api/spans/search?status=error",
        cli: ["spans", "--status", "error"],
        ...SPAN_FIELDS,
        expected: spanIds((span) => span.error),
      },
      {
        what: "spans by attribute",
        mcp: {
          tool: "search_spans",
          arguments: { attributes: { "http.route": "/cart" } },
          list: "spans",
        },
        api: "/api/spans/search?attr.http.route=%2Fcart",
        cli: ["spans", "attr.http.route=/cart"],
        ...SPAN_FIELDS,
        expected: spanIds((span) => span.route === "/cart"),
      },
      {
        what: "logs of a service",
        mcp: { tool: "search_logs", arguments: { service: "agree-db" }, list: "logs" },
        api: "/api/logs?service=agree-db",
        cli: ["logs", "--service", "agree-db"],
        ...LOG_FIELDS,
        expected: logBodies(() => true),
      },
      {
        what: "error logs by body text",
        mcp: {
          tool: "search_logs",
          arguments: { severity: "error", body: "declined" },
          list: "logs",
        },
        api: "/api/logs?severity=error&contains=declined",
        cli: ["logs", "--severity", "error", "--contains", "declined"],
        ...LOG_FIELDS,
        expected: logBodies((log) => log.severityNumber === 17),
      },
    ];

    httpClient = new Client({ name: "agreement-http", version: "1.0.0" });
    await httpClient.connect(new StreamableHTTPClientTransport(new URL(`${obsd.url}/mcp`)));
    stdioClient = new Client({ name: "agreement-stdio", version: "1.0.0" });
    await stdioClient.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: [packagePath("bin", "obs.js"), "mcp", "--base-url", obsd.url],
        stderr: "ignore",
      }),
    );
  });
  after(async () => {
    await httpClient?.close();
    await stdioClient?.close();
    await obsd?.stop();
  });

  /** Every page of an MCP answer, following its continuation. */
  async function mcpItems(client: Client, question: Question): Promise<[string, string][]> {
    const ids: [string, string][] = [];
    let args: Record<string, unknown> = { ...question.mcp.arguments, lookback: "1h", limit: PAGE };
    for (let page = 0; page < 20; page++) {
      const result = await client.callTool({ name: question.mcp.tool, arguments: args });
      expect(result.isError, JSON.stringify(result.content)).to.not.equal(true);
      const answer = result.structuredContent as Record<string, unknown> & {
        truncated: boolean;
        continuation?: { tool: string; arguments: Record<string, unknown> };
      };
      const items = answer[question.mcp.list] as Record<string, unknown>[];
      ids.push(...items.map((item) => itemOf(item, question.mcpFields)));
      if (!answer.truncated) return ids;
      expect(answer.continuation?.tool).to.equal(question.mcp.tool);
      args = answer.continuation?.arguments ?? {};
    }
    throw new Error(`${question.what}: more than 20 pages`);
  }

  async function apiItems(question: Question): Promise<[string, string][]> {
    const ids: [string, string][] = [];
    let cursor: string | null = null;
    for (let page = 0; page < 20; page++) {
      const url = `${obsd.url}${question.api}&lookback=1h&limit=${PAGE}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`;
      const response = await http(url);
      expect(response.status, response.body.toString()).to.equal(200);
      const body = response.json<{ data: Record<string, unknown>[]; meta: { nextCursor: string | null } }>();
      ids.push(...body.data.map((item) => itemOf(item, question.fields)));
      cursor = body.meta.nextCursor;
      if (cursor === null) return ids;
    }
    throw new Error(`${question.what}: more than 20 pages`);
  }

  async function cliItems(question: Question): Promise<[string, string][]> {
    const ids: [string, string][] = [];
    let cursor: string | null = null;
    for (let page = 0; page < 20; page++) {
      const args = [...question.cli, "--since", "1h", "--limit", String(PAGE), "--json", "--base-url", obsd.url];
      const result = await runObs(cursor ? [...args, "--cursor", cursor] : args);
      expect(result.code, result.stderr).to.equal(0);
      const document = JSON.parse(result.stdout) as {
        data: Record<string, unknown>[];
        page: { next_cursor: string | null };
      };
      ids.push(...document.data.map((item) => itemOf(item, question.cliFields)));
      cursor = document.page.next_cursor;
      if (cursor === null) return ids;
    }
    throw new Error(`${question.what}: more than 20 pages`);
  }

  it("answers each question with the same items in the same order, page after page", async () => {
    for (const question of questions) {
      expect(question.expected.length, question.what).to.be.greaterThan(PAGE);
      const api = await apiItems(question);
      expect(
        api.map(([, checked]) => checked),
        `${question.what} through the API`,
      ).to.deep.equal(question.expected);
      const others = {
        cli: await cliItems(question),
        "obsd's /mcp": await mcpItems(httpClient, question),
        "obs mcp": await mcpItems(stdioClient, question),
      };
      for (const [where, items] of Object.entries(others)) {
        expect(items, `${question.what} through ${where}`).to.deep.equal(api);
      }
    }
  });
});

/**
 * The MCP server's figures (issue 36):
 * (a) bytes per span of get_trace_outline's answer on a large trace (10,000 spans, 3 services,
 *     mixed names), paging through it with the continuation at the default and the largest
 *     max_bytes (target: at most 120);
 * (b) tool-call latency, p50 and p95, of a representative set of tools on the bench/query store
 *     (BENCH_DB reuses one built earlier), in process (the tool over inProcessQueryApi over the
 *     real query thread) and end to end (the SDK's Streamable HTTP client against a real
 *     obsd's POST /mcp) (target: p50 under 20 ms). Prints figures; asserts nothing.
 */
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { budgetOf, DEFAULT_MAX_BYTES, jsonBytes, MAX_MAX_BYTES } from "../daemon/mcp/budget.js";
import { inProcessQueryApi } from "../daemon/mcp/in-process-api.js";
import type { AnswerTail, AnyMcpTool } from "../daemon/mcp/mcp-tool.js";
import { MCP_TOOLS } from "../daemon/mcp/tool-list.js";
import { QueryClient } from "../daemon/query/query-client.js";
import type { HealthRecord } from "../shared/api-records.js";
import type { QueryApi } from "../shared/query-api.js";
import { startCollectorProcess } from "../test/helpers/collector-process.js";
import { tempDir } from "../test/helpers/temp-dir.js";
import { writeLargeTrace } from "./mcp-large-trace.js";
import { percentile, round } from "./measure.js";
import { loadOrBuildDataset } from "./query-dataset.js";

/** The collector address the tools link to: the links are text here, never followed. */
const BENCH_BASE_URL = "http://127.0.0.1:27686";

const TRACES = Number(process.env.BENCH_TRACES ?? 200_000);
const LOGS = Number(process.env.BENCH_LOGS ?? 1_000_000);
const RUNS = Number(process.env.BENCH_RUNS ?? 20);
const OUTLINE_SPANS = Number(process.env.BENCH_OUTLINE_SPANS ?? 10_000);
const TARGET_BYTES_PER_SPAN = 120;
const TARGET_P50_MS = 20;

type Args = Record<string, unknown>;

/** The tools whose latency is measured, with arguments that find something in the store. */
function latencyCalls(bigTraceId: string): [string, Args][] {
  return [
    ["list_services", { lookback: "24h" }],
    ["search_traces", { service: "payments", lookback: "24h" }],
    ["get_trace_outline", { trace_id: bigTraceId }],
    ["search_logs", { body: "timeout", lookback: "24h" }],
    ["trace_stats", { group_by: "service", agg: "p95_duration", lookback: "24h" }],
  ];
}

function toolNamed(name: string): AnyMcpTool | undefined {
  return MCP_TOOLS.find((tool) => tool.name === name);
}

/** A QueryApi over the real query thread on `dbPath`, as obsd's /mcp has it. */
function threadApi(dbPath: string): { api: QueryApi; close: () => Promise<void> } {
  const queries = new QueryClient(dbPath);
  const health = () => ({ status: "ok", service: "obsd" }) as HealthRecord;
  return { api: inProcessQueryApi(queries, health), close: () => queries.close() };
}

interface OutlinePaging {
  maxBytes: number;
  pages: number;
  spans: number;
  bytes: number;
  bytesPerSpan: number;
  firstPageRows: number;
}

/** Pages through the whole outline with the continuation, adding up the answers' bytes. */
async function outlinePaging(api: QueryApi, traceId: string, maxBytes: number): Promise<OutlinePaging> {
  const tool = toolNamed("get_trace_outline") as AnyMcpTool;
  let args: Args = { trace_id: traceId, max_bytes: maxBytes };
  let pages = 0;
  let bytes = 0;
  let spans = 0;
  let firstPageRows = 0;
  for (;;) {
    const { structured } = (await tool.run(args, {
      api,
      baseUrl: BENCH_BASE_URL,
      maxBytes: budgetOf(args.max_bytes),
    })) as {
      structured: AnswerTail & { rows: unknown[] };
    };
    pages++;
    bytes += jsonBytes(structured);
    spans += structured.rows.length;
    if (pages === 1) firstPageRows = structured.rows.length;
    if (!structured.truncated || !structured.continuation) break;
    if (structured.rows.length === 0) throw new Error("the outline's continuation made no progress");
    args = structured.continuation.arguments;
  }
  return { maxBytes, pages, spans, bytes, bytesPerSpan: round(bytes / spans, 1), firstPageRows };
}

async function measureOutline(): Promise<OutlinePaging[]> {
  const dir = tempDir("obs-bench-mcp-outline-");
  const dbPath = join(dir.path, "outline.sqlite");
  const traceId = writeLargeTrace(dbPath, OUTLINE_SPANS, BigInt(Date.now()) * 1_000_000n);
  const { api, close } = threadApi(dbPath);
  try {
    const rows: OutlinePaging[] = [];
    for (const maxBytes of [DEFAULT_MAX_BYTES, MAX_MAX_BYTES]) {
      const row = await outlinePaging(api, traceId, maxBytes);
      if (row.spans !== OUTLINE_SPANS) throw new Error(`the outline listed ${row.spans} of ${OUTLINE_SPANS} spans`);
      rows.push(row);
      console.log(
        `get_trace_outline, ${OUTLINE_SPANS} spans, max_bytes ${maxBytes}: ${row.bytesPerSpan} bytes/span over ${row.pages} pages (${row.firstPageRows} spans on the first; target <= ${TARGET_BYTES_PER_SPAN})`,
      );
    }
    return rows;
  } finally {
    await close();
    dir.cleanup();
  }
}

interface LatencyRow {
  path: "in process" | "obsd /mcp";
  tool: string;
  p50Ms: number;
  p95Ms: number;
  bytes: number;
  met: boolean;
}

/** Times `call` RUNS times after two warm-up calls. */
async function timed(call: () => Promise<number>): Promise<{ times: number[]; bytes: number }> {
  const times: number[] = [];
  let bytes = 0;
  for (let run = -2; run < RUNS; run++) {
    const started = performance.now();
    bytes = await call();
    if (run >= 0) times.push(performance.now() - started);
  }
  return { times, bytes };
}

function latencyRow(path: LatencyRow["path"], tool: string, times: number[], bytes: number): LatencyRow {
  const p50 = percentile(times, 50);
  const row = {
    path,
    tool,
    p50Ms: round(p50, 2),
    p95Ms: round(percentile(times, 95), 2),
    bytes,
    met: p50 < TARGET_P50_MS,
  };
  console.log(
    `${path} ${tool}: p50 ${row.p50Ms} ms, p95 ${row.p95Ms} ms, ${bytes} bytes (target p50 < ${TARGET_P50_MS} ms)`,
  );
  return row;
}

async function latencyInProcess(dbPath: string, calls: [string, Args][]): Promise<LatencyRow[]> {
  const { api, close } = threadApi(dbPath);
  try {
    const rows: LatencyRow[] = [];
    for (const [name, args] of calls) {
      const tool = toolNamed(name);
      if (!tool) {
        console.log(`in process ${name}: not served by this build, skipped`);
        continue;
      }
      const { times, bytes } = await timed(async () => {
        const answer = await tool.run(args, { api, baseUrl: BENCH_BASE_URL, maxBytes: budgetOf(args.max_bytes) });
        return jsonBytes(answer.structured);
      });
      rows.push(latencyRow("in process", name, times, bytes));
    }
    return rows;
  } finally {
    await close();
  }
}

async function latencyOverHttp(url: string, calls: [string, Args][]): Promise<LatencyRow[]> {
  const client = new Client({ name: "obs-bench", version: "1.0.0" });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${url}/mcp`)));
  try {
    const served = new Set((await client.listTools()).tools.map((tool) => tool.name));
    const rows: LatencyRow[] = [];
    for (const [name, args] of calls) {
      if (!served.has(name)) {
        console.log(`obsd /mcp ${name}: not served by this build, skipped`);
        continue;
      }
      const { times, bytes } = await timed(async () => {
        const result = await client.callTool({ name, arguments: args });
        if (result.isError) throw new Error(`${name} failed: ${JSON.stringify(result.content)}`);
        return jsonBytes(result);
      });
      rows.push(latencyRow("obsd /mcp", name, times, bytes));
    }
    return rows;
  } finally {
    await client.close();
  }
}

async function main(): Promise<void> {
  const outline = toolNamed("get_trace_outline") ? await measureOutline() : [];
  if (outline.length === 0) console.log("get_trace_outline is not served by this build; no outline figures");

  const dir = tempDir("obs-bench-mcp-");
  const dbPath = process.env.BENCH_DB ?? join(dir.path, "query.sqlite");
  const info = loadOrBuildDataset("bench/mcp", dbPath, TRACES, LOGS);
  const calls = latencyCalls(info.bigTraceId);
  const latency: LatencyRow[] = await latencyInProcess(dbPath, calls);
  const obsd = await startCollectorProcess({ dbPath, stateDir: dir.path, args: ["--max-db-size", "8GiB"] });
  try {
    latency.push(...(await latencyOverHttp(obsd.url, calls)));
  } finally {
    await obsd.stop();
    dir.cleanup();
  }
  console.table(latency);
  console.log(
    JSON.stringify({
      benchmark: "mcp",
      outline: { spans: OUTLINE_SPANS, targetBytesPerSpan: TARGET_BYTES_PER_SPAN, paging: outline },
      store: { spans: info.spans, logs: info.logs },
      runs: RUNS,
      targetP50Ms: TARGET_P50_MS,
      latency,
    }),
  );
}

await main();

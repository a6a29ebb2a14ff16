/**
 * bench/mcp-trace-tools: the MCP trace tools on one trace of BENCH_SPANS spans (default 1,000)
 * with mixed span names, 3 services and a fan-out of 4, in a real store. Prints the outline's
 * bytes per span (the rows alone, and whole answers followed through their continuations at
 * the default max_bytes and at 64 KiB; the target is at most 120, Jaeger's about 185)
 * and the p50 of a call to each trace tool (a tool's own work plus the store's answer).
 *
 *   npm run build && node dist/bench/mcp-trace-tools.js     (BENCH_SPANS=1000)
 */
import { performance } from "node:perf_hooks";
import type { AnyMcpTool } from "../daemon/mcp/mcp-tool.js";
import { getCriticalPath } from "../daemon/mcp/tools/critical-path.js";
import { getSpanDetails } from "../daemon/mcp/tools/span-details.js";
import { getTraceErrors } from "../daemon/mcp/tools/trace-errors.js";
import { getTraceOutline } from "../daemon/mcp/tools/trace-outline.js";
import { searchTraces } from "../daemon/mcp/tools/traces.js";
import { storeApi } from "../test/helpers/mcp-tools.js";
import { hexId, type SpanSpec, traceRequest } from "../test/helpers/otlp-builders.js";
import { testStore } from "../test/helpers/store.js";
import { percentile, round } from "./measure.js";

const SPANS = Number(process.env.BENCH_SPANS ?? 1000);
const MS = 1_000_000n;
const NAMES = [
  "GET /api/cart",
  "SELECT orders WHERE customer_id = ?",
  "redis GET",
  "render template",
  "POST /checkout",
  "grpc orders.OrderService/Get",
  "HTTP GET inventory",
  "kafka publish order.created",
  "db.query",
  "serialize",
];
const SERVICES = ["frontend", "orders", "postgres"];
const TRACE = hexId(1, 16);

const store = testStore();
const nowNs = BigInt(Date.now()) * MS;
const startNs = nowNs - 60_000n * MS;
for (const [s, service] of SERVICES.entries()) {
  const spans: SpanSpec[] = [];
  for (let i = s; i < SPANS; i += SERVICES.length) {
    // Durations and offsets with microsecond detail, as real spans have.
    spans.push({
      traceId: TRACE,
      spanId: hexId(i + 1, 8),
      ...(i === 0 ? {} : { parentSpanId: hexId(Math.floor((i - 1) / 4) + 1, 8) }),
      name: NAMES[(i * 7) % NAMES.length] as string,
      startNs: startNs + BigInt(i) * 137_123n,
      durationNs: BigInt(SPANS - i) * 211_457n,
      error: i % 97 === 0,
    });
  }
  store.writeTraces(traceRequest(service, spans));
}
const query = storeApi(store.path);
const ctx = (maxBytes: number) => ({ api: query.api, maxBytes });

async function outlineBytes(maxBytes: number): Promise<{ answers: number; perSpan: number; rowsPerSpan: number }> {
  let args: Record<string, unknown> = { trace_id: TRACE, max_bytes: maxBytes };
  let answers = 0;
  let bytes = 0;
  let rowBytes = 0;
  for (;;) {
    const { structured } = await getTraceOutline.run(args as { trace_id: string }, ctx(maxBytes));
    answers += 1;
    bytes += Buffer.byteLength(JSON.stringify(structured));
    rowBytes += Buffer.byteLength(JSON.stringify(structured.rows)) - 1;
    if (!structured.truncated) break;
    args = structured.continuation?.arguments as Record<string, unknown>;
  }
  return { answers, perSpan: round(bytes / SPANS), rowsPerSpan: round(rowBytes / SPANS) };
}

async function p50(tool: AnyMcpTool, args: Record<string, unknown>, times = 9): Promise<number> {
  const ms: number[] = [];
  for (let i = 0; i < times; i++) {
    const start = performance.now();
    await tool.run(args, ctx(16 * 1024));
    ms.push(performance.now() - start);
  }
  return round(percentile(ms, 50));
}

const rootAndChildren = [hexId(1, 8), hexId(2, 8), hexId(3, 8)];
console.log(`trace of ${SPANS} spans, ${NAMES.length} span names, ${SERVICES.length} services`);
for (const maxBytes of [16 * 1024, 64 * 1024]) {
  const measured = await outlineBytes(maxBytes);
  console.log(
    `outline at max_bytes ${maxBytes}: ${measured.answers} answers, ${measured.perSpan} bytes/span (rows alone ${measured.rowsPerSpan})`,
  );
}
console.log("p50 ms per call:");
console.log(`  search_traces      ${await p50(searchTraces, {})}`);
console.log(`  get_trace_outline  ${await p50(getTraceOutline, { trace_id: TRACE })}`);
console.log(`  get_span_details   ${await p50(getSpanDetails, { span_ids: rootAndChildren, trace_id: TRACE })}`);
console.log(`  get_trace_errors   ${await p50(getTraceErrors, { trace_id: TRACE })}`);
console.log(`  get_critical_path  ${await p50(getCriticalPath, { trace_id: TRACE })}`);
query.close();
store.close();

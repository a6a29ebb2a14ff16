import { Agent, request } from "node:http";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { startCollectorProcess } from "../test/helpers/collector-process.js";
import { tempDir } from "../test/helpers/temp-dir.js";
import { percentile, round } from "./measure.js";
import { loadOrBuildDataset } from "./query-dataset.js";

const TRACES = Number(process.env.BENCH_TRACES ?? 200_000);
const LOGS = Number(process.env.BENCH_LOGS ?? 1_000_000);
const RUNS = Number(process.env.BENCH_RUNS ?? 20);

function get(agent: Agent, url: string): Promise<{ status: number; ms: number; bytes: number }> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const req = request(url, { agent }, (res) => {
      let bytes = 0;
      res.on("data", (chunk: Buffer) => {
        bytes += chunk.length;
      });
      res.on("end", () => resolve({ status: res.statusCode ?? 0, ms: performance.now() - started, bytes }));
    });
    req.on("error", reject);
    req.end();
  });
}

async function main(): Promise<void> {
  const dir = tempDir("obs-bench-query-");
  const dbPath = process.env.BENCH_DB ?? join(dir.path, "query.sqlite");
  const info = loadOrBuildDataset("bench/query", dbPath, TRACES, LOGS);
  const obsd = await startCollectorProcess({ dbPath, stateDir: dir.path, args: ["--max-db-size", "8GiB"] });
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  // A span id known to be stored (span ids are looked up alone, one seek per row-id bucket).
  const bigTrace = (await (await fetch(`${obsd.url}/api/traces/${info.bigTraceId}/spans`)).json()) as {
    data: { spanId: string }[];
  };
  const knownSpanId = bigTrace.data[0]?.spanId;
  const queries: [string, string, number][] = [
    ["trace list (default)", "/api/traces", 15],
    [
      "trace list: service + status + durationMin, 24h",
      "/api/traces?service=payments&status=error&durationMin=100&lookback=24h",
      15,
    ],
    ["span search by attr.KEY, 24h", "/api/spans/search?attr.user.id=user-17&lookback=24h", 15],
    ["logs contains, 24h", "/api/logs?contains=timeout&lookback=24h", 15],
    // One seek per 4,096-row bucket of the logs' trace index.
    ["logs of a trace, 24h", `/api/logs?traceId=${info.bigTraceId}&lookback=24h`, 15],
    ["trace detail (200 spans)", `/api/traces/${info.bigTraceId}`, 15],
    ["span by id", `/api/spans/${knownSpanId}`, 15],
    [
      "trace-stats p95_duration by service, 24h",
      "/api/traces/stats?groupBy=service&agg=p95_duration&lookback=24h",
      300,
    ],
    [
      "facet attribute_values, 24h",
      "/api/facets?type=traces&field=attribute_values&key=cloud.region&lookback=24h",
      300,
    ],
  ];
  const health: number[] = [];
  const healthAgent = new Agent({ keepAlive: true, maxSockets: 1 });
  let querying = true;
  const poller = (async () => {
    while (querying) {
      health.push((await get(healthAgent, `${obsd.url}/api/health`)).ms);
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
  })();
  const results: Record<string, unknown>[] = [];
  try {
    for (const [name, path, targetMs] of queries) {
      const times: number[] = [];
      let bytes = 0;
      for (let run = -2; run < RUNS; run++) {
        const answer = await get(agent, `${obsd.url}${path}`);
        if (answer.status !== 200) throw new Error(`${path} answered ${answer.status}`);
        if (run >= 0) times.push(answer.ms);
        bytes = answer.bytes;
      }
      const p50 = percentile(times, 50);
      const row = {
        query: name,
        p50Ms: round(p50, 2),
        p95Ms: round(percentile(times, 95), 2),
        targetP50Ms: targetMs,
        met: p50 < targetMs,
        bytes,
      };
      results.push(row);
      console.log(`${name}: p50 ${row.p50Ms} ms, p95 ${row.p95Ms} ms (target p50 < ${targetMs} ms)`);
    }
  } finally {
    querying = false;
    await poller;
    agent.destroy();
    healthAgent.destroy();
    await obsd.stop();
    dir.cleanup();
  }
  const healthRow = {
    p50Ms: round(percentile(health, 50), 2),
    p99Ms: round(percentile(health, 99), 2),
    maxMs: round(Math.max(...health), 2),
    targetMs: 5,
  };
  console.table(results);
  console.log(
    `health during the queries: p50 ${healthRow.p50Ms} ms, p99 ${healthRow.p99Ms} ms, max ${healthRow.maxMs} ms`,
  );
  console.log(
    JSON.stringify({
      benchmark: "query",
      spans: info.spans,
      logs: info.logs,
      runs: RUNS,
      queries: results,
      health: healthRow,
    }),
  );
}

await main();

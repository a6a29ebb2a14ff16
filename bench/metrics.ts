/**
 * bench/metrics: OTLP metrics ingestion and the series query.
 *
 * Ingest half: end-to-end data points/s of a real obsd over HTTP (OTLP/protobuf, 5,000 series
 * reporting every 10 s, 10 attributes per point: 50 services each exporting its 100 series per
 * interval) beside the raw write ceiling (the same bodies decoded in this process and written
 * by the same writer, CONCURRENCY requests per transaction, no HTTP and no decoder, the log
 * checkpointed on a thread of its own as obsd's is: raw-checkpoints.ts), measured
 * interleaved in the same run as bench/ingest does; obsd's CPU per point, in all and per thread, and the
 * client's; and the bytes the store holds per point. Beside them, the pipeline's own ceiling: the
 * same bodies dated before the retention window, sent to a real obsd the same way, so every
 * request goes through HTTP, the decoder, the hand-off and the writer's retention filter and
 * nothing is stored. End to end cannot pass it; its ratio to the raw ceiling is the most the
 * ratio target could reach on this machine with a writer that cost nothing.
 * Both sides first write the same warm-up intervals, so the series exist and the code is warm.
 * With BENCH_HISTORY_MIN, both start from a copy of a store holding that many minutes of the
 * same series: what a collector that has run for a while writes into.
 *
 * Query half: a store filled straight through the writer with 1,000 series at 10 s over 24
 * hours (8.6 million points), then `GET /api/metrics/series` grouped by service and by one
 * attribute, p50 of several runs. BENCH_QUERY_HOURS=0 leaves it out, for quick ingest runs.
 *
 *   npm run bench:metrics   (BENCH_INTERVALS=120 BENCH_WARMUP=2 BENCH_CONCURRENCY=8 BENCH_ROUNDS=3
 *                            BENCH_QUERY_RUNS=9 BENCH_QUERY_HOURS=24 BENCH_HISTORY_MIN=0 by default)
 */
import { copyFileSync } from "node:fs";
import { Agent } from "node:http";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import type Database from "better-sqlite3";
import { decodeMetricRequest } from "../daemon/otlp/decode-request.js";
import type { MetricBatch } from "../daemon/otlp/records.js";
import { openWriteConnection } from "../daemon/store/connection.js";
import { TelemetryWriter } from "../daemon/store/telemetry-writer.js";
import type { HealthRecord } from "../shared/api-records.js";
import { packagePath } from "../shared/package-root.js";
import { startCollectorProcess } from "../test/helpers/collector-process.js";
import { tempDir } from "../test/helpers/temp-dir.js";
import { getJson, getStatus, postAll } from "./http-load.js";
import { peakRss, percentile, round, threadCpuPerUnit, threadCpuSeconds } from "./measure.js";
import { fillBatches, INTERVAL_S, protobufBodies, SERIES_PER_SERVICE, SERVICES } from "./metric-workload.js";
import { threadCheckpoints } from "./raw-checkpoints.js";
import { preparePosts, sendAll } from "./socket-load.js";

/**
 * Twenty minutes of the series' points by default: twice the ten minutes the writer holds a
 * series' points before writing them (metric-writer.ts, POINT_HOLD_MINUTES), so the run holds
 * the turns in which series write them, and the write of what is still held at the end (timed,
 * and done by the writer thread alone) is a small share of it, as in a collector that runs. A
 * run shorter than the hold measures that last write more than the steady state
 * (docs/metrics-store.md, "How long a run").
 */
const INTERVALS = Number(process.env.BENCH_INTERVALS ?? 120);
const WARMUP = Number(process.env.BENCH_WARMUP ?? 2);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 8);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const QUERY_RUNS = Number(process.env.BENCH_QUERY_RUNS ?? 9);
const QUERY_HOURS = Number(process.env.BENCH_QUERY_HOURS ?? 24);
/**
 * Minutes of the same series' history every round's store starts with (0: an empty store).
 * A series' newest points share a page of `metric_points` with its older ones, so once a series
 * has filled a page every commit writes a page per series it touched (docs/metrics-store.md).
 */
const HISTORY_MIN = Number(process.env.BENCH_HISTORY_MIN ?? 0);
/**
 * The client that sends the bodies: `socket` (socket-load.ts: requests built before the clock
 * starts, answers read for their status) or `node-http` (http-load.ts). On two shared cores the
 * client's CPU is taken from obsd's; the socket client costs a fraction of node:http's.
 */
const CLIENT = process.env.BENCH_CLIENT ?? "socket";
if (CLIENT !== "socket" && CLIENT !== "node-http")
  throw new Error(`BENCH_CLIENT is socket or node-http, not ${CLIENT}`);
/**
 * Node's options for the end-to-end runs' obsd, space-separated: to profile it under this load
 * (`BENCH_OBSD_NODE_ARGS="--cpu-prof --cpu-prof-dir=/tmp/prof"`, every thread) or try V8 flags.
 */
const OBSD_NODE_ARGS = (process.env.BENCH_OBSD_NODE_ARGS ?? "").split(" ").filter(Boolean);
const POINTS_PER_BODY = SERIES_PER_SERVICE;
const PROTOBUF = "application/x-protobuf";

const median = (values: number[]) => percentile(values, 50);

/** Bytes of the metric tables (with their indexes) per stored point. */
function bytesPerPoint(db: Database.Database): { total: number; points: number } {
  const sizes = new Map(
    (
      db.prepare("SELECT name, sum(pgsize) AS bytes FROM dbstat GROUP BY name").all() as {
        name: string;
        bytes: number;
      }[]
    ).map((row) => [row.name, Number(row.bytes)]),
  );
  const count = Number(db.prepare("SELECT count(*) FROM metric_points").pluck().get());
  const tables = [
    "metrics",
    "metric_series",
    "metric_series_last",
    "metric_series_attributes",
    "metric_points",
    "metric_rollups",
    "metric_slot_packs",
  ];
  const indexes = db
    .prepare(`SELECT name FROM sqlite_schema WHERE tbl_name IN (${tables.map(() => "?").join(", ")})`)
    .pluck()
    .all(...tables) as string[];
  const total = [...new Set([...tables, ...indexes])].reduce((sum, name) => sum + (sizes.get(name) ?? 0), 0);
  return { total: round(total / count, 1), points: round((sizes.get("metric_points") ?? 0) / count, 1) };
}

async function rawCeiling(
  warmup: Buffer[],
  bodies: Buffer[],
  nowNs: bigint,
  history: string | null,
): Promise<{ pointsPerSec: number; bytes: ReturnType<typeof bytesPerPoint> }> {
  const dir = tempDir("obs-bench-metrics-raw-");
  const path = join(dir.path, "raw.sqlite");
  if (history !== null) copyFileSync(history, path);
  const { db } = openWriteConnection(path);
  const writer = new TelemetryWriter(db, 0n);
  const checkpoints = threadCheckpoints(db, path);
  const writeAll = async (all: MetricBatch[]) => {
    for (let i = 0; i < all.length; i += CONCURRENCY) {
      const group = all.slice(i, i + CONCURRENCY);
      writer.transaction(() => {
        for (const batch of group) writer.writeMetrics(batch, nowNs);
      });
      await checkpoints.afterCommit();
    }
  };
  const decode = (all: Buffer[]) => all.map((body) => decodeMetricRequest(body, "protobuf"));
  await writeAll(decode(warmup));
  const batches = decode(bodies);
  const started = performance.now();
  await writeAll(batches);
  // Timed: what the writer holds (metric-writer.ts) is written before the points count as
  // stored, as a reader's first query has it written.
  writer.writeHeld();
  const seconds = (performance.now() - started) / 1000;
  await checkpoints.stop();
  const bytes = bytesPerPoint(db);
  db.close();
  dir.cleanup();
  return { pointsPerSec: (bodies.length * POINTS_PER_BODY) / seconds, bytes };
}

interface EndToEndRun {
  pointsPerSec: number;
  peakRssMb: number;
  /** obsd's CPU per point, all threads, and each thread's, busiest first (Linux only). */
  obsdCpuUsPerPoint: number;
  threadCpuUsPerPoint: number[];
  /** This process's CPU per point while it sends the bodies. */
  clientCpuUsPerPoint: number;
}

/**
 * End to end over HTTP, with where the CPU went: on 2 shared cores the threads together bound
 * the rate, not the writer alone (docs/metrics-store.md).
 */
async function endToEnd(warmup: Buffer[], bodies: Buffer[], history: string | null): Promise<EndToEndRun> {
  return postedRun(warmup, bodies, history);
}

/**
 * The pipeline's ceiling: `old` bodies, every point older than obsd's retention window, are
 * answered with partial success and stored nowhere (kept-records.ts filters them in the writer,
 * after the decoder and the hand-off), so the run costs all of end to end but the storing.
 */
async function pipelineCeiling(warmup: Buffer[], old: Buffer[]): Promise<EndToEndRun> {
  return postedRun(warmup, old, null, async (agent, url) => {
    // Were a point stored, this would be end to end again, not the pipeline's ceiling.
    const health = (await getJson(agent, `${url}/api/health`)) as HealthRecord;
    if (health.counts.points !== 0) throw new Error(`the pipeline run stored ${health.counts.points} points`);
  });
}

async function postedRun(
  warmup: Buffer[],
  bodies: Buffer[],
  history: string | null,
  check: (agent: Agent, url: string) => Promise<void> = async () => {},
): Promise<EndToEndRun> {
  const dir = tempDir("obs-bench-metrics-e2e-");
  const dbPath = join(dir.path, "telemetry.sqlite");
  if (history !== null) copyFileSync(history, dbPath);
  const obsd = await startCollectorProcess({
    dbPath,
    argv: [...OBSD_NODE_ARGS, packagePath("bin", "obsd.js"), "--port", "0", "--db", dbPath],
  });
  const pid = obsd.child.pid as number;
  const agent = new Agent({ keepAlive: true, maxSockets: CONCURRENCY });
  try {
    const url = `${obsd.url}/v1/metrics`;
    // The socket client's requests are built here, before the clock starts.
    const sender = (all: Buffer[]): (() => Promise<void>) => {
      if (CLIENT === "node-http") return () => postAll(agent, url, all, PROTOBUF, CONCURRENCY);
      const prepared = preparePosts(url, all, PROTOBUF);
      return () => sendAll(url, prepared, CONCURRENCY);
    };
    await sender(warmup)();
    const send = sender(bodies);
    const threadsBefore = threadCpuSeconds(pid);
    const clientBefore = process.cpuUsage();
    const started = performance.now();
    await send();
    // A metric query has the writer write what it holds first: timed, so every point counted
    // is where readers read it, as in the raw ceiling.
    const listed = await getStatus(agent, `${obsd.url}/api/metrics`);
    if (listed !== 200) throw new Error(`GET /api/metrics answered ${listed}`);
    const seconds = (performance.now() - started) / 1000;
    const client = process.cpuUsage(clientBefore);
    const points = bodies.length * POINTS_PER_BODY;
    const threads = threadCpuPerUnit(threadsBefore, threadCpuSeconds(pid), points);
    await check(agent, obsd.url);
    return {
      pointsPerSec: points / seconds,
      peakRssMb: round(peakRss(pid) / 1024 / 1024),
      obsdCpuUsPerPoint: round(
        threads.reduce((sum, us) => sum + us, 0),
        1,
      ),
      threadCpuUsPerPoint: threads.filter((us) => us >= 0.1),
      clientCpuUsPerPoint: round((client.user + client.system) / points, 1),
    };
  } finally {
    agent.destroy();
    await obsd.stop();
    dir.cleanup();
  }
}

/**
 * A store holding `intervals` intervals of the workload's series, written by the writer as
 * obsd's would (8 requests a transaction, what it holds written at the end), checkpointed.
 */
function historyStore(path: string, intervals: number, startNs: bigint, nowNs: bigint): void {
  const { db } = openWriteConnection(path);
  const writer = new TelemetryWriter(db, 0n);
  const started = performance.now();
  for (let k = 0; k < intervals; k++) {
    const batches = protobufBodies(1, startNs, k).map((body) => decodeMetricRequest(body, "protobuf"));
    for (let i = 0; i < batches.length; i += CONCURRENCY) {
      const group = batches.slice(i, i + CONCURRENCY);
      writer.transaction(() => {
        for (const batch of group) writer.writeMetrics(batch, nowNs);
      });
    }
    if ((k + 1) % Math.max(1, Math.floor(intervals / 5)) === 0) {
      const seconds = (performance.now() - started) / 1000;
      console.log(`history: ${k + 1} of ${intervals} intervals in ${round(seconds, 1)} s`);
    }
  }
  writer.writeHeld();
  db.pragma("wal_checkpoint(TRUNCATE)");
  db.close();
}

const SERIES_URL = (groupBy: string) =>
  `/api/metrics/series?name=http.server.request.count&agg=rate&lookback=${QUERY_HOURS}h&groupBy=${groupBy}`;

/** The query half; null (with a printed note) when BENCH_QUERY_HOURS=0 leaves it out. */
async function queryHalf(): Promise<Record<string, unknown> | null> {
  if (QUERY_HOURS <= 0) {
    console.log("query half skipped (BENCH_QUERY_HOURS=0)");
    return null;
  }
  const dir = tempDir("obs-bench-metrics-query-");
  const dbPath = join(dir.path, "telemetry.sqlite");
  try {
    const series = 1000;
    const intervals = (QUERY_HOURS * 3600) / INTERVAL_S;
    const startNs = BigInt(Date.now() - QUERY_HOURS * 3_600_000 + 60_000) * 1_000_000n;
    const { db } = openWriteConnection(dbPath);
    const writer = new TelemetryWriter(db, 0n);
    const fillStarted = performance.now();
    let batches: MetricBatch[] = [];
    for (const batch of fillBatches(series, 20, intervals, startNs)) {
      batches.push(batch);
      if (batches.length === 8) {
        const group = batches;
        writer.transaction(() => {
          for (const b of group) writer.writeMetrics(b, 0n);
        });
        batches = [];
      }
    }
    if (batches.length > 0) {
      const group = batches;
      writer.transaction(() => {
        for (const b of group) writer.writeMetrics(b, 0n);
      });
    }
    writer.writeHeld();
    const fillSeconds = (performance.now() - fillStarted) / 1000;
    const points = Number(db.prepare("SELECT count(*) FROM metric_points").pluck().get());
    const bytes = bytesPerPoint(db);
    db.close();
    const obsd = await startCollectorProcess({ dbPath });
    const queryAgent = new Agent({ keepAlive: true, maxSockets: 1 });
    try {
      const timings: Record<string, number> = {};
      for (const groupBy of ["service", "attr.http.route"]) {
        const ms: number[] = [];
        for (let i = 0; i < QUERY_RUNS; i++) {
          const t = performance.now();
          const answer = await getStatus(queryAgent, `${obsd.url}${SERIES_URL(groupBy)}`);
          ms.push(performance.now() - t);
          if (answer !== 200) throw new Error(`GET /api/metrics/series answered ${answer}`);
        }
        timings[groupBy] = round(median(ms), 2);
      }
      return {
        series,
        points,
        fillPointsPerSec: Math.round(points / fillSeconds),
        bytesPerPoint: bytes,
        p50Ms: timings,
      };
    } finally {
      queryAgent.destroy();
      await obsd.stop();
    }
  } finally {
    dir.cleanup();
  }
}

async function main(): Promise<void> {
  const seriesCount = SERVICES * SERIES_PER_SERVICE;
  console.log(
    `bench/metrics: ${seriesCount} series every ${INTERVAL_S} s, ${INTERVALS} intervals (${INTERVALS * seriesCount} points, after ${WARMUP} warm-up intervals), protobuf, 10 attributes per point, ${CONCURRENCY} requests in flight, ${ROUNDS} rounds${HISTORY_MIN > 0 ? `, into ${HISTORY_MIN} minutes of history` : ""}`,
  );
  const nowNs = BigInt(Date.now()) * 1_000_000n;
  const historyIntervals = Math.round((HISTORY_MIN * 60) / INTERVAL_S);
  const startNs = nowNs - BigInt((historyIntervals + INTERVALS + WARMUP + 1) * INTERVAL_S) * 1_000_000_000n;
  const historyDir = historyIntervals > 0 ? tempDir("obs-bench-metrics-history-") : null;
  const history = historyDir === null ? null : join(historyDir.path, "history.sqlite");
  if (history !== null) historyStore(history, historyIntervals, startNs, nowNs);
  const all = protobufBodies(WARMUP + INTERVALS, startNs, historyIntervals);
  const warmup = all.slice(0, WARMUP * SERVICES);
  const bodies = all.slice(WARMUP * SERVICES);
  // A year before: past any retention window obsd takes by default (7 days).
  const oldStartNs = startNs - 365n * 86_400n * 1_000_000_000n;
  const old = protobufBodies(WARMUP + INTERVALS, oldStartNs, historyIntervals);
  const raw: number[] = [];
  const e2e: EndToEndRun[] = [];
  const pipeline: EndToEndRun[] = [];
  let bytes: ReturnType<typeof bytesPerPoint> = { total: 0, points: 0 };
  for (let r = 1; r <= ROUNDS; r++) {
    const ceiling = await rawCeiling(warmup, bodies, nowNs, history);
    raw.push(ceiling.pointsPerSec);
    bytes = ceiling.bytes;
    e2e.push(await endToEnd(warmup, bodies, history));
    pipeline.push(await pipelineCeiling(old.slice(0, warmup.length), old.slice(warmup.length)));
    console.log(
      `round ${r}: raw ${Math.round(raw.at(-1) as number)}, protobuf ${Math.round(e2e.at(-1)?.pointsPerSec ?? 0)}, pipeline (nothing stored) ${Math.round(pipeline.at(-1)?.pointsPerSec ?? 0)} points/s; obsd threads' CPU µs a point ${e2e.at(-1)?.threadCpuUsPerPoint.join(" / ")} (nothing stored: ${pipeline.at(-1)?.threadCpuUsPerPoint.join(" / ")})`,
    );
  }
  historyDir?.cleanup();
  const rawMedian = median(raw);
  const endToEndMedian = median(e2e.map((run) => run.pointsPerSec));
  const pipelineMedian = median(pipeline.map((run) => run.pointsPerSec));
  const query = await queryHalf();
  const result = {
    benchmark: "metrics",
    series: seriesCount,
    points: bodies.length * POINTS_PER_BODY,
    concurrency: CONCURRENCY,
    rounds: ROUNDS,
    historyMinutes: HISTORY_MIN,
    rawCeilingPointsPerSec: Math.round(rawMedian),
    rawCeilingRounds: raw.map(Math.round),
    protobuf: {
      pointsPerSec: Math.round(endToEndMedian),
      ofRawCeiling: round(endToEndMedian / rawMedian, 3),
      rounds: e2e.map((run) => Math.round(run.pointsPerSec)),
      peakRssMb: Math.max(...e2e.map((run) => run.peakRssMb)),
      obsdCpuUsPerPoint: median(e2e.map((run) => run.obsdCpuUsPerPoint)),
      clientCpuUsPerPoint: median(e2e.map((run) => run.clientCpuUsPerPoint)),
      threadCpuUsPerPointByRound: e2e.map((run) => run.threadCpuUsPerPoint),
    },
    pipelineCeiling: {
      pointsPerSec: Math.round(pipelineMedian),
      ofRawCeiling: round(pipelineMedian / rawMedian, 3),
      rounds: pipeline.map((run) => Math.round(run.pointsPerSec)),
      obsdCpuUsPerPoint: median(pipeline.map((run) => run.obsdCpuUsPerPoint)),
      clientCpuUsPerPoint: median(pipeline.map((run) => run.clientCpuUsPerPoint)),
    },
    bytesPerPoint: bytes,
    query,
    targets: { endToEndPointsPerSec: 100_000, ofRawCeiling: 0.75, seriesP50Ms: 20 },
  };
  console.table({
    protobuf: {
      "points/s": result.protobuf.pointsPerSec,
      "raw points/s": result.rawCeilingPointsPerSec,
      "of raw": result.protobuf.ofRawCeiling,
      "pipeline points/s (nothing stored)": result.pipelineCeiling.pointsPerSec,
      "pipeline of raw": result.pipelineCeiling.ofRawCeiling,
      "bytes/point (all metric tables)": bytes.total,
      "bytes/point (points table)": bytes.points,
      "peak RSS MB": result.protobuf.peakRssMb,
      "obsd CPU µs/point": result.protobuf.obsdCpuUsPerPoint,
      "client CPU µs/point": result.protobuf.clientCpuUsPerPoint,
    },
  });
  console.log(JSON.stringify(result));
}

await main();

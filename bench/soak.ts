/**
 * bench/soak: a bounded soak of a real obsd (not part of CI). First the collector's maximum
 * ingest rate is measured (saturating protobuf span batches); then, for SOAK_MINUTES, spans
 * (and one log record per four spans) are sent at half that rate while a client runs the query
 * routes in a loop. Every window prints the rate achieved, obsd's RSS, the database size and
 * query latency. At the end the post-warm-up windows are checked for flatness: the RSS slope
 * and the query p50 of the last third against the first third. Exit 1 when not flat.
 *
 *   npm run bench:soak    (SOAK_MINUTES=10 SOAK_WINDOW_S=30; SOAK_RATE=spans/s skips the probe)
 */

import { Agent } from "node:http";
import { performance } from "node:perf_hooks";
import { decodeTraceRequest } from "../daemon/otlp/decode-request.js";
import { fileSize } from "../shared/file-size.js";
import { startCollectorProcess } from "../test/helpers/collector-process.js";
import { getStatus, postBody } from "./http-load.js";
import { percentile, round, rssMiB, slope } from "./measure.js";
import { logTemplate, spanTemplate, stamp, type Template } from "./soak-workload.js";

const MINUTES = Number(process.env.SOAK_MINUTES ?? 10);
const WINDOW_S = Number(process.env.SOAK_WINDOW_S ?? 30);
const FIXED_RATE = process.env.SOAK_RATE ? Number(process.env.SOAK_RATE) : null;
/** obsd's --max-db-size (its default, 1 GiB, when unset): size retention starts when the store reaches it. */
const MAX_DB_SIZE = process.env.SOAK_MAX_DB_SIZE;
const PROBE_S = 20;
const SPANS_PER_BATCH = 512;
const TEMPLATES = 32;
/** Windows before this many seconds are warm-up: caches fill and the store reaches its working size. */
const WARMUP_S = Math.min(120, (MINUTES * 60) / 5);
/** Flat means: RSS grows under 2 MiB a minute, and the last third's query p50 is within 1.5x of the first's. */
const MAX_RSS_SLOPE_MIB_PER_MIN = 2;
const MAX_QUERY_P50_RATIO = 1.5;

const QUERIES = [
  "/api/services?lookback=1m",
  "/api/traces?lookback=1m&limit=20",
  "/api/traces?lookback=1m&status=error&limit=20",
  "/api/spans/search?lookback=1m&limit=50&attr.http.route=/api/v1/resource3/:id",
  "/api/traces/stats?lookback=1m&groupBy=service&agg=p95_duration",
  "/api/logs?lookback=1m&severity=error&limit=50",
  "/api/facets?type=traces&field=service&lookback=1m",
];

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

interface Window {
  atS: number;
  spansPerS: number;
  rssMiB: number;
  dbMiB: number;
  walMiB: number;
  queryP50Ms: number;
  queryP99Ms: number;
  queries: number;
}

async function main(): Promise<void> {
  const spanTemplates: Template[] = Array.from({ length: TEMPLATES }, (_, i) => spanTemplate(i + 1, SPANS_PER_BATCH));
  const logTemplates: Template[] = Array.from({ length: TEMPLATES }, (_, i) => logTemplate(i + 1, SPANS_PER_BATCH / 4));
  // The stamping must give new, well-formed spans: check one before relying on it.
  const sample = decodeTraceRequest(stamp(spanTemplates[0] as Template, 0x12345678, Date.now()), "protobuf");
  if (sample.spans.length !== SPANS_PER_BATCH || !sample.spans.every((s) => s.traceId.startsWith("12345678"))) {
    throw new Error("template stamping produced unexpected spans");
  }

  const obsd = await startCollectorProcess(MAX_DB_SIZE ? { args: ["--max-db-size", MAX_DB_SIZE] } : {});
  const pid = obsd.child.pid as number;
  const agent = new Agent({ keepAlive: true, maxSockets: 8 });
  const queryAgent = new Agent({ keepAlive: true, maxSockets: 1 });
  let salt = 1;
  const nextBody = (templates: Template[]) => stamp(templates[salt % TEMPLATES] as Template, salt++, Date.now());
  const failures: string[] = [];
  const post = async (path: string, body: Buffer) => {
    const status = await postBody(agent, `${obsd.url}${path}`, body, "application/x-protobuf");
    if (status !== 200 && failures.length < 10) failures.push(`${path} answered ${status}`);
  };

  try {
    let rate = FIXED_RATE;
    if (rate === null) {
      let spans = 0;
      const until = performance.now() + PROBE_S * 1000;
      await Promise.all(
        Array.from({ length: 8 }, async () => {
          while (performance.now() < until) {
            await post("/v1/traces", nextBody(spanTemplates));
            spans += SPANS_PER_BATCH;
          }
        }),
      );
      const max = spans / PROBE_S;
      rate = Math.round(max / 2);
      console.log(`maximum ingest rate: ${Math.round(max)} spans/s over ${PROBE_S} s (protobuf, 8 in flight)`);
    }
    console.log(
      `soak: ${MINUTES} min at ${rate} spans/s (+ ${Math.round(rate / 4)} logs/s), queries in a loop, windows of ${WINDOW_S} s`,
    );

    const started = performance.now();
    const endAt = started + MINUTES * 60_000;
    let spansSent = 0;
    let latencies: number[] = [];
    let windowSpans = 0;
    let queries = 0;
    let done = false;

    // Paced sender: each tick sends the batches that keep the total on `rate`; up to 8 in flight.
    const inFlight = new Set<Promise<void>>();
    const sender = (async () => {
      while (performance.now() < endAt) {
        const due = Math.floor((((performance.now() - started) / 1000) * (rate as number)) / SPANS_PER_BATCH);
        while (spansSent / SPANS_PER_BATCH < due && inFlight.size < 8) {
          const work = (async () => {
            await post("/v1/traces", nextBody(spanTemplates));
            await post("/v1/logs", nextBody(logTemplates));
          })();
          inFlight.add(work);
          void work.finally(() => inFlight.delete(work));
          spansSent += SPANS_PER_BATCH;
          windowSpans += SPANS_PER_BATCH;
        }
        await sleep(10);
      }
      await Promise.all(inFlight);
    })();

    const querier = (async () => {
      while (!done) {
        for (const path of QUERIES) {
          const t = performance.now();
          const status = await getStatus(queryAgent, `${obsd.url}${path}`);
          latencies.push(performance.now() - t);
          queries++;
          if (status !== 200 && failures.length < 10) failures.push(`${path} answered ${status}`);
        }
        await sleep(50);
      }
    })();

    const windows: Window[] = [];
    console.log("   at s   spans/s   RSS MiB   db MiB  WAL MiB   query p50 ms   query p99 ms   queries");
    let windowStart = performance.now();
    while (performance.now() < endAt) {
      await sleep(Math.min(WINDOW_S * 1000, endAt - performance.now()));
      const now = performance.now();
      const window: Window = {
        atS: Math.round((now - started) / 1000),
        spansPerS: Math.round(windowSpans / ((now - windowStart) / 1000)),
        rssMiB: rssMiB(pid),
        dbMiB: round(fileSize(obsd.dbPath) / 1048576),
        walMiB: round(fileSize(`${obsd.dbPath}-wal`) / 1048576),
        queryP50Ms: round(percentile(latencies, 50), 2),
        queryP99Ms: round(percentile(latencies, 99), 2),
        queries,
      };
      windows.push(window);
      console.log(
        [
          String(window.atS).padStart(7),
          String(window.spansPerS).padStart(9),
          String(window.rssMiB).padStart(9),
          String(window.dbMiB).padStart(8),
          String(window.walMiB).padStart(8),
          String(window.queryP50Ms).padStart(14),
          String(window.queryP99Ms).padStart(14),
          String(window.queries).padStart(9),
        ].join(" "),
      );
      latencies = [];
      windowSpans = 0;
      queries = 0;
      windowStart = now;
    }
    await sender;
    done = true;
    await querier;

    const steady = windows.filter((w) => w.atS > WARMUP_S);
    const third = Math.max(1, Math.floor(steady.length / 3));
    const median = (values: number[]) => percentile(values, 50);
    const first = median(steady.slice(0, third).map((w) => w.queryP50Ms));
    const last = median(steady.slice(-third).map((w) => w.queryP50Ms));
    const rssSlope = slope(
      steady.map((w) => w.atS / 60),
      steady.map((w) => w.rssMiB),
    );
    const result = {
      benchmark: "soak",
      minutes: MINUTES,
      targetSpansPerS: rate,
      achievedSpansPerS: Math.round(spansSent / ((performance.now() - started) / 1000)),
      rssMiB: { afterWarmup: steady[0]?.rssMiB, end: steady.at(-1)?.rssMiB, slopePerMin: round(rssSlope, 2) },
      queryP50Ms: { firstThird: first, lastThird: last, ratio: round(last / first, 2) },
      queryP99MsWorst: Math.max(...steady.map((w) => w.queryP99Ms)),
      failures,
    };
    console.log(JSON.stringify(result));
    const flat = failures.length === 0 && rssSlope < MAX_RSS_SLOPE_MIB_PER_MIN && last / first < MAX_QUERY_P50_RATIO;
    console.log(
      flat
        ? `flat: RSS ${round(rssSlope, 2)} MiB/min after warm-up, query p50 ${first} -> ${last} ms`
        : `NOT flat: RSS ${round(rssSlope, 2)} MiB/min (limit ${MAX_RSS_SLOPE_MIB_PER_MIN}), query p50 ${first} -> ${last} ms (limit x${MAX_QUERY_P50_RATIO}), ${failures.length} failures`,
    );
    process.exitCode = flat ? 0 : 1;
  } finally {
    agent.destroy();
    queryAgent.destroy();
    await obsd.stop();
  }
}

await main();

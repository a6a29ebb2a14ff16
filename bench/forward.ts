/**
 * bench/forward: does forwarding keep up with local ingest?
 *
 * Two real obsd processes on this machine: a local one started with `--forward` to an upstream
 * one. Three measurements, in one run:
 *
 * 1. Burst: BURST_BATCHES requests of 512 spans (the bench/ingest workload, OTLP/protobuf,
 *    8 in flight) as fast as the local collector acknowledges them. Local ingest spans/s (last
 *    acknowledgement), end-to-end forwarded spans/s (the upstream holding every span), and the
 *    lag when the burst ends: records and seconds behind, and how long the upstream took after
 *    the last acknowledgement to hold everything.
 * 2. Paced: RATE spans/s for PACED_SECONDS (20,000 by default, the target): the largest
 *    lag seen during the run, and the drain time after it. Keeping up means the lag stays
 *    bounded by about a second's worth and drains in about a second.
 * 3. Slow upstream: the same paced load to a collector forwarding to an upstream that accepts
 *    connections and never answers; /api/health polled the whole time (p50/p99), so a stalled
 *    upstream is seen not to hold up the collector.
 *
 *   npm run bench:forward   (BENCH_BURST_BATCHES=200 BENCH_RATE=20000 BENCH_PACED_SECONDS=10)
 */
import { Agent, createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { performance } from "node:perf_hooks";
import { setTimeout as sleep } from "node:timers/promises";
import { type CollectorProcess, startCollectorProcess } from "../test/helpers/collector-process.js";
import { getStatus, postAll, postBody } from "./http-load.js";
import { percentile, round } from "./measure.js";
import { makeWorkload, SPANS_PER_BATCH } from "./span-workload.js";

const BURST_BATCHES = Number(process.env.BENCH_BURST_BATCHES ?? 200);
const RATE = Number(process.env.BENCH_RATE ?? 20_000);
const PACED_SECONDS = Number(process.env.BENCH_PACED_SECONDS ?? 10);
const CONCURRENCY = 8;
const PROTOBUF = "application/x-protobuf";

interface Forwarding {
  lagRecords: number;
  lagSeconds: number;
  sent: number;
  state: string;
}

async function health(url: string): Promise<{ counts: { spans: number }; forwarding: Forwarding[] }> {
  const answer = await fetch(`${url}/api/health`);
  return (await answer.json()) as { counts: { spans: number }; forwarding: Forwarding[] };
}

async function until(check: () => Promise<boolean>, limitMs: number): Promise<number> {
  const started = performance.now();
  while (!(await check())) {
    if (performance.now() - started > limitMs) throw new Error(`not done within ${limitMs / 1000} s`);
    await sleep(20);
  }
  return performance.now() - started;
}

/** Sends `bodies` at `rate` spans/s (8 in flight at most); calls `tick` every 100 ms meanwhile. */
async function paced(agent: Agent, url: string, bodies: Buffer[], rate: number, tick: () => Promise<void>) {
  const interval = (SPANS_PER_BATCH / rate) * 1000;
  const started = performance.now();
  let running = true;
  const ticker = (async () => {
    while (running) {
      await tick();
      await sleep(100);
    }
  })();
  const inFlight = new Set<Promise<unknown>>();
  for (const [i, body] of bodies.entries()) {
    const due = started + i * interval;
    const wait = due - performance.now();
    if (wait > 0) await sleep(wait);
    while (inFlight.size >= CONCURRENCY) await Promise.race(inFlight);
    const sent = postBody(agent, `${url}/v1/traces`, body, PROTOBUF).then((status) => {
      if (status !== 200) throw new Error(`ingest answered ${status}`);
    });
    inFlight.add(sent);
    void sent.finally(() => inFlight.delete(sent));
  }
  await Promise.all(inFlight);
  const seconds = (performance.now() - started) / 1000;
  running = false;
  await ticker;
  return seconds;
}

async function main(): Promise<void> {
  const pacedBatches = Math.ceil((RATE * PACED_SECONDS) / SPANS_PER_BATCH);
  console.log(
    `bench/forward: burst of ${BURST_BATCHES * SPANS_PER_BATCH} spans; paced ${RATE} spans/s for ${PACED_SECONDS} s; slow upstream at the same pace (OTLP/protobuf, 512 spans a request)`,
  );
  const nowNs = BigInt(Date.now()) * 1_000_000n;
  const burst = makeWorkload(BURST_BATCHES, 1, nowNs).protobuf;
  const steady = makeWorkload(pacedBatches, 2, nowNs).protobuf;
  const agent = new Agent({ keepAlive: true, maxSockets: CONCURRENCY });
  const started: CollectorProcess[] = [];
  try {
    const upstream = await startCollectorProcess();
    started.push(upstream);
    const local = await startCollectorProcess({ args: ["--forward", upstream.url] });
    started.push(local);

    // 1. Burst.
    const t0 = performance.now();
    await postAll(agent, `${local.url}/v1/traces`, burst, PROTOBUF, CONCURRENCY);
    const ingestSeconds = (performance.now() - t0) / 1000;
    const atEnd = (await health(local.url)).forwarding[0] as Forwarding;
    const total = burst.length * SPANS_PER_BATCH;
    const drainMs = await until(async () => (await health(upstream.url)).counts.spans >= total, 120_000);
    const forwardSeconds = (performance.now() - t0) / 1000;

    // 2. Paced at RATE.
    let maxLag = 0;
    let maxLagSeconds = 0;
    const pacedSeconds = await paced(agent, local.url, steady, RATE, async () => {
      const f = (await health(local.url)).forwarding[0] as Forwarding;
      maxLag = Math.max(maxLag, f.lagRecords);
      maxLagSeconds = Math.max(maxLagSeconds, f.lagSeconds);
    });
    const pacedTotal = total + steady.length * SPANS_PER_BATCH;
    const pacedDrainMs = await until(async () => (await health(upstream.url)).counts.spans >= pacedTotal, 120_000);

    // 3. An upstream that never answers.
    const hanging = createServer(() => {});
    await new Promise<void>((resolve) => hanging.listen(0, "127.0.0.1", () => resolve()));
    const stalled = await startCollectorProcess({
      args: ["--forward", `http://127.0.0.1:${(hanging.address() as AddressInfo).port}`],
    });
    started.push(stalled);
    const healthMs: number[] = [];
    const healthAgent = new Agent({ keepAlive: true, maxSockets: 1 });
    await paced(agent, stalled.url, steady, RATE, async () => {
      const t = performance.now();
      await getStatus(healthAgent, `${stalled.url}/api/health`);
      healthMs.push(performance.now() - t);
    });
    const stalledLag = (await health(stalled.url)).forwarding[0] as Forwarding;
    healthAgent.destroy();
    hanging.closeAllConnections();
    hanging.close();

    const result = {
      benchmark: "forward",
      burst: {
        spans: total,
        localIngestSpansPerSec: Math.round(total / ingestSeconds),
        forwardedSpansPerSec: Math.round(total / forwardSeconds),
        forwardedOfLocal: round(ingestSeconds / forwardSeconds, 3),
        lagAtEnd: { records: atEnd.lagRecords, seconds: round(atEnd.lagSeconds, 2) },
        drainAfterLastAckMs: Math.round(drainMs),
      },
      paced: {
        spansPerSec: Math.round((steady.length * SPANS_PER_BATCH) / pacedSeconds),
        maxLagRecords: maxLag,
        maxLagSeconds: round(maxLagSeconds, 2),
        drainAfterLastAckMs: Math.round(pacedDrainMs),
      },
      stalledUpstream: {
        spansPerSec: Math.round((steady.length * SPANS_PER_BATCH) / pacedSeconds),
        healthP50Ms: round(percentile(healthMs, 50), 2),
        healthP99Ms: round(percentile(healthMs, 99), 2),
        healthSamples: healthMs.length,
        lagRecords: stalledLag.lagRecords,
        state: stalledLag.state,
      },
      targets: { forwardKeepsUpAtSpansPerSec: 20_000, healthP99Ms: 20 },
    };
    console.table({
      burst: {
        "local spans/s": result.burst.localIngestSpansPerSec,
        "forwarded spans/s": result.burst.forwardedSpansPerSec,
        "lag at end": `${atEnd.lagRecords} (${round(atEnd.lagSeconds, 2)} s)`,
        "drain ms": result.burst.drainAfterLastAckMs,
      },
      [`paced ${RATE}/s`]: {
        "local spans/s": result.paced.spansPerSec,
        "forwarded spans/s": result.paced.spansPerSec,
        "lag at end": `max ${maxLag} (${round(maxLagSeconds, 2)} s)`,
        "drain ms": result.paced.drainAfterLastAckMs,
      },
    });
    console.log(JSON.stringify(result));
  } finally {
    agent.destroy();
    for (const collector of started.reverse()) await collector.stop();
  }
}

await main();

/**
 * bench/forward: does forwarding keep up with local ingest, and does a stalled upstream cost
 * the collector anything?
 *
 * A real obsd started with `--forward` to an upstream on this machine. The upstream is a sink by
 * default (an OTLP/HTTP endpoint that inflates each batch and answers 200): a second obsd
 * ingesting the same spans would take half of this 2-core machine, and the figure would be
 * the machine's, not the forwarder's (BENCH_UPSTREAM=obsd sends to a real obsd instead, and
 * waits until it holds every span). Delivery is read from the collector's own `sent` counter,
 * which counts what the upstream acknowledged.
 *
 * 1. Burst: BURST_BATCHES requests of 512 spans (the bench/ingest workload, OTLP/protobuf,
 *    8 in flight) as fast as the collector acknowledges them: local ingest spans/s (last
 *    acknowledgement), forwarded spans/s (all delivered), the lag when the burst ends and how
 *    long it then took to drain.
 * 2. Paced: RATE spans/s for PACED_SECONDS (20,000 by default, the target): the rate
 *    held, the largest lag seen (health polled every second) and the drain time after it.
 *    Keeping up means the lag stays within about a second's worth and drains in about a second.
 *    Both again to a collector without forwarding, for what this machine holds anyway.
 * 3. Health under load: /api/health polled every 100 ms while HEALTH_RATE spans/s are ingested
 *    (2,000 by default, a busy developer machine), by a collector without forwarding and by one
 *    forwarding to an upstream that accepts connections and never answers; p50 and p99 of each.
 *
 *   npm run bench:forward   (BENCH_BURST_BATCHES=200 BENCH_RATE=20000 BENCH_PACED_SECONDS=10
 *                            BENCH_HEALTH_RATE=2000 BENCH_HEALTH_SECONDS=15 BENCH_UPSTREAM=sink|obsd)
 */
import { Agent, createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { performance } from "node:perf_hooks";
import { setTimeout as sleep } from "node:timers/promises";
import { gunzip } from "node:zlib";
import { type CollectorProcess, startCollectorProcess } from "../test/helpers/collector-process.js";
import { getStatus, postAll, postBody } from "./http-load.js";
import { percentile, round } from "./measure.js";
import { makeWorkload, SPANS_PER_BATCH } from "./span-workload.js";

const BURST_BATCHES = Number(process.env.BENCH_BURST_BATCHES ?? 200);
const RATE = Number(process.env.BENCH_RATE ?? 20_000);
const PACED_SECONDS = Number(process.env.BENCH_PACED_SECONDS ?? 10);
const HEALTH_RATE = Number(process.env.BENCH_HEALTH_RATE ?? 2_000);
const HEALTH_SECONDS = Number(process.env.BENCH_HEALTH_SECONDS ?? 15);
const UPSTREAM = process.env.BENCH_UPSTREAM ?? "sink";
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

/** Sends `bodies` at `rate` spans/s (8 in flight at most); calls `tick` every `tickMs` meanwhile. */
async function paced(url: string, bodies: Buffer[], rate: number, tick: () => Promise<void>, tickMs: number) {
  // An agent of its own: a keep-alive socket left idle since the last phase may have been closed.
  const agent = new Agent({ keepAlive: true, maxSockets: CONCURRENCY });
  const interval = (SPANS_PER_BATCH / rate) * 1000;
  const started = performance.now();
  let running = true;
  const ticker = (async () => {
    while (running) {
      await tick();
      await sleep(tickMs);
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
  agent.destroy();
  return seconds;
}

/** An OTLP/HTTP endpoint that inflates each batch and answers 200 (or never, when `hang`). */
async function sink(hang: boolean): Promise<{ url: string; close(): void }> {
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      if (hang) return;
      gunzip(Buffer.concat(chunks), () => res.writeHead(200, { "content-type": "application/x-protobuf" }).end());
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", () => resolve()));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => {
      server.closeAllConnections();
      server.close();
    },
  };
}

/** /api/health every 100 ms while `bodies` go to `url` at `rate`: p50 and p99 in ms. */
async function healthUnderLoad(url: string, bodies: Buffer[], rate: number) {
  const ms: number[] = [];
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const seconds = await paced(
    url,
    bodies,
    rate,
    async () => {
      const t = performance.now();
      await getStatus(agent, `${url}/api/health`);
      ms.push(performance.now() - t);
    },
    100,
  );
  agent.destroy();
  return {
    spansPerSec: Math.round((bodies.length * SPANS_PER_BATCH) / seconds),
    healthP50Ms: round(percentile(ms, 50), 2),
    healthP99Ms: round(percentile(ms, 99), 2),
    samples: ms.length,
  };
}

async function main(): Promise<void> {
  const pacedBatches = Math.ceil((RATE * PACED_SECONDS) / SPANS_PER_BATCH);
  const healthBatches = Math.ceil((HEALTH_RATE * HEALTH_SECONDS) / SPANS_PER_BATCH);
  console.log(
    `bench/forward: upstream ${UPSTREAM}; burst of ${BURST_BATCHES * SPANS_PER_BATCH} spans; paced ${RATE} spans/s for ${PACED_SECONDS} s; health at ${HEALTH_RATE} spans/s for ${HEALTH_SECONDS} s without forwarding and to a stalled upstream (OTLP/protobuf, 512 spans a request)`,
  );
  const nowNs = BigInt(Date.now()) * 1_000_000n;
  const burst = makeWorkload(BURST_BATCHES, 1, nowNs).protobuf;
  const steady = makeWorkload(pacedBatches, 2, nowNs).protobuf;
  const light = makeWorkload(healthBatches, 3, nowNs).protobuf;
  const started: CollectorProcess[] = [];
  const sinks: { close(): void }[] = [];
  try {
    let upstreamUrl: string;
    if (UPSTREAM === "obsd") {
      const upstream = await startCollectorProcess();
      started.push(upstream);
      upstreamUrl = upstream.url;
    } else {
      const endpoint = await sink(false);
      sinks.push(endpoint);
      upstreamUrl = endpoint.url;
    }
    const local = await startCollectorProcess({ args: ["--forward", upstreamUrl] });
    started.push(local);
    const sent = async () => ((await health(local.url)).forwarding[0] as Forwarding).sent;

    // 1. Burst.
    const agent = new Agent({ keepAlive: true, maxSockets: CONCURRENCY });
    const t0 = performance.now();
    await postAll(agent, `${local.url}/v1/traces`, burst, PROTOBUF, CONCURRENCY);
    agent.destroy();
    const ingestSeconds = (performance.now() - t0) / 1000;
    const atEnd = (await health(local.url)).forwarding[0] as Forwarding;
    const total = burst.length * SPANS_PER_BATCH;
    const drainMs = await until(async () => (await sent()) >= total, 120_000);
    const forwardSeconds = (performance.now() - t0) / 1000;

    // 2. Paced at RATE.
    let maxLag = 0;
    let maxLagSeconds = 0;
    const pacedSeconds = await paced(
      local.url,
      steady,
      RATE,
      async () => {
        const f = (await health(local.url)).forwarding[0] as Forwarding;
        maxLag = Math.max(maxLag, f.lagRecords);
        maxLagSeconds = Math.max(maxLagSeconds, f.lagSeconds);
        // Once a second: on a store this young a health call reads the last minute's spans row
        // by row (its services count), and polling it faster would hold ingestion back.
      },
      1_000,
    );
    const pacedTotal = total + steady.length * SPANS_PER_BATCH;
    const pacedDrainMs = await until(async () => (await sent()) >= pacedTotal, 120_000);
    for (const collector of started.splice(0).reverse()) await collector.stop();

    // 2b. The same burst then pace to a collector without forwarding: what this machine holds anyway.
    const alone = await startCollectorProcess();
    started.push(alone);
    const aloneAgent = new Agent({ keepAlive: true, maxSockets: CONCURRENCY });
    const a0 = performance.now();
    await postAll(aloneAgent, `${alone.url}/v1/traces`, burst, PROTOBUF, CONCURRENCY);
    const aloneBurstSeconds = (performance.now() - a0) / 1000;
    aloneAgent.destroy();
    const alonePacedSeconds = await paced(alone.url, steady, RATE, async () => void (await health(alone.url)), 1_000);
    await (started.pop() as CollectorProcess).stop();

    // 3. Health under load, without forwarding and to a stalled upstream.
    const plain = await startCollectorProcess();
    started.push(plain);
    const withoutForwarding = await healthUnderLoad(plain.url, light, HEALTH_RATE);
    await (started.pop() as CollectorProcess).stop();
    const hanging = await sink(true);
    sinks.push(hanging);
    const stalled = await startCollectorProcess({ args: ["--forward", hanging.url] });
    started.push(stalled);
    const stalledUpstream = await healthUnderLoad(stalled.url, light, HEALTH_RATE);
    const stalledState = (await health(stalled.url)).forwarding[0] as Forwarding;

    const result = {
      benchmark: "forward",
      upstream: UPSTREAM,
      burst: {
        spans: total,
        localIngestSpansPerSec: Math.round(total / ingestSeconds),
        forwardedSpansPerSec: Math.round(total / forwardSeconds),
        forwardedOfLocal: round(ingestSeconds / forwardSeconds, 3),
        lagAtEnd: { records: atEnd.lagRecords, seconds: round(atEnd.lagSeconds, 2) },
        drainAfterLastAckMs: Math.round(drainMs),
        withoutForwardingSpansPerSec: Math.round(total / aloneBurstSeconds),
      },
      paced: {
        targetSpansPerSec: RATE,
        heldSpansPerSec: Math.round((steady.length * SPANS_PER_BATCH) / pacedSeconds),
        maxLagRecords: maxLag,
        maxLagSeconds: round(maxLagSeconds, 2),
        drainAfterLastAckMs: Math.round(pacedDrainMs),
        withoutForwardingSpansPerSec: Math.round((steady.length * SPANS_PER_BATCH) / alonePacedSeconds),
      },
      health: {
        rate: HEALTH_RATE,
        withoutForwarding,
        stalledUpstream: { ...stalledUpstream, lagRecords: stalledState.lagRecords, state: stalledState.state },
      },
      targets: { forwardKeepsUpAtSpansPerSec: 20_000, healthP99Ms: 20 },
    };
    console.table({
      burst: {
        "spans/s in": result.burst.localIngestSpansPerSec,
        "spans/s in, no forwarding": result.burst.withoutForwardingSpansPerSec,
        "spans/s forwarded": result.burst.forwardedSpansPerSec,
        "lag at end": `${atEnd.lagRecords} (${round(atEnd.lagSeconds, 2)} s)`,
        "drain ms": result.burst.drainAfterLastAckMs,
      },
      [`paced ${RATE}/s`]: {
        "spans/s in": result.paced.heldSpansPerSec,
        "spans/s in, no forwarding": result.paced.withoutForwardingSpansPerSec,
        "spans/s forwarded": result.paced.heldSpansPerSec,
        "lag at end": `max ${maxLag} (${round(maxLagSeconds, 2)} s)`,
        "drain ms": result.paced.drainAfterLastAckMs,
      },
    });
    console.table({
      "no forwarding": withoutForwarding,
      "stalled upstream": stalledUpstream,
    });
    console.log(JSON.stringify(result));
  } finally {
    for (const collector of started.reverse()) await collector.stop();
    for (const endpoint of sinks) endpoint.close();
  }
}

await main();

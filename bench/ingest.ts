/**
 * bench/ingest: end-to-end OTLP ingestion throughput of a real obsd over HTTP (JSON and
 * protobuf) and OTLP/gRPC on the same port, with obsd's CPU per span, beside the raw ceiling
 * of the store (the same decoded rows written straight into the same schema by the same writer
 * code, no HTTP, no decoder, the log checkpointed on a thread of its own as obsd's is:
 * raw-checkpoints.ts), measured in the same run. Also: /api/health latency while
 * ingestion saturates the collector, and the collector's peak RSS.
 *
 * The raw ceiling commits CONCURRENCY requests per transaction: the most the collector's
 * group commit can merge with that many requests in flight, so the ratio measures only what
 * HTTP, decoding and the worker hand-off cost.
 *
 * Throughput and health latency come from separate passes over the same load. The health
 * loop (a request every 5 ms, about 150 a second) is itself load: on this 2-core machine it
 * took about 15% off the throughput of the pass it ran in (docs/perf-history/2026-11.md), so the
 * spans/s figures come from passes without it, and its pass reports its own spans/s beside.
 *
 * Both sides are measured warm: before the timed part, each writes the same warm-up requests
 * (other ids), so the code is compiled and both stores start with the same spans. Without it
 * the end-to-end side, a fresh obsd each pass, paid its start-up inside the timing while the
 * raw side ran in this already warm process from its second round on.
 *
 * This machine is shared and noisy, so the measurements run interleaved for several rounds
 * and the medians are reported, with every round's value beside them.
 *
 * gRPC sends the same protobuf bodies as HTTP/protobuf, CONCURRENCY calls in flight on one
 * HTTP/2 connection as grpc-js does; its target is 90% of HTTP/protobuf's spans/s, with health
 * p99 under 20 ms while it saturates the collector.
 *
 *   npm run bench:ingest    (BENCH_BATCHES=200 BENCH_WARMUP=16 BENCH_CONCURRENCY=8 BENCH_ROUNDS=3 by default)
 */
import { Agent } from "node:http";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { decodeTraceRequest } from "../daemon/otlp/decode-request.js";
import { openWriteConnection } from "../daemon/store/connection.js";
import { PostingPacker } from "../daemon/store/posting-packer.js";
import { TelemetryWriter } from "../daemon/store/telemetry-writer.js";
import { startCollectorProcess } from "../test/helpers/collector-process.js";
import { tempDir } from "../test/helpers/temp-dir.js";
import { exportAllGrpc } from "./grpc-load.js";
import { getStatus as get, postAll } from "./http-load.js";
import { peakRss, percentile, round, threadCpuPerUnit, threadCpuSeconds } from "./measure.js";
import { threadCheckpoints } from "./raw-checkpoints.js";
import { makeWorkload, SPANS_PER_BATCH } from "./span-workload.js";

const BATCHES = Number(process.env.BENCH_BATCHES ?? 200);
const WARMUP_BATCHES = Number(process.env.BENCH_WARMUP ?? 16);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 8);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);

function median(values: number[]): number {
  return percentile(values, 50);
}

async function rawCeiling(warmup: Buffer[], bodies: Buffer[], nowNs: bigint): Promise<number> {
  const dir = tempDir("obs-bench-raw-");
  const path = join(dir.path, "raw.sqlite");
  const { db } = openWriteConnection(path);
  const writer = new TelemetryWriter(db, 0n);
  const checkpoints = threadCheckpoints(db, path);
  // Full posting buckets packed between commits, as obsd's writer thread does: the keys it
  // hashes are then written hashed (posting-packer.ts), as they are end to end.
  const packer = new PostingPacker(db, writer.hashedKeys);
  const writeAll = async (batches: ReturnType<typeof decodeTraceRequest>[]) => {
    for (let i = 0; i < batches.length; i += CONCURRENCY) {
      const group = batches.slice(i, i + CONCURRENCY);
      writer.transaction(() => {
        for (const batch of group) writer.writeSpans(batch, nowNs);
      });
      await checkpoints.afterCommit();
      while (packer.packNext()) {}
    }
  };
  await writeAll(warmup.map((body) => decodeTraceRequest(body, "json")));
  const batches = bodies.map((body) => decodeTraceRequest(body, "json"));
  const started = performance.now();
  await writeAll(batches);
  const seconds = (performance.now() - started) / 1000;
  await checkpoints.stop();
  db.close();
  dir.cleanup();
  return (batches.length * SPANS_PER_BATCH) / seconds;
}

interface EndToEnd {
  spansPerSecond: number;
  /** Health request latencies in ms; empty when the pass ran without the health loop. */
  healthMs: number[];
  peakRssMb: number;
  /** obsd's CPU per span, all threads (Linux; 0 elsewhere): steadier than spans/s on a shared machine. */
  cpuUsPerSpan: number;
}

/** How a pass sends: OTLP/HTTP with a content type, or OTLP/gRPC (protobuf bodies). */
type Transport = { http: string } | "grpc";

/** One pass: a fresh obsd takes every body, CONCURRENCY in flight; optionally under the health loop. */
async function endToEnd(
  warmup: Buffer[],
  bodies: Buffer[],
  transport: Transport,
  probeHealth: boolean,
): Promise<EndToEnd> {
  const obsd = await startCollectorProcess();
  const agent = new Agent({ keepAlive: true, maxSockets: CONCURRENCY });
  const healthAgent = new Agent({ keepAlive: true, maxSockets: 1 });
  const send = (batch: Buffer[]) =>
    transport === "grpc"
      ? exportAllGrpc(obsd.url, batch, CONCURRENCY)
      : postAll(agent, `${obsd.url}/v1/traces`, batch, transport.http, CONCURRENCY);
  try {
    await get(healthAgent, `${obsd.url}/api/health`);
    await send(warmup);
    let done = false;
    const latencies: number[] = [];
    const sampler = (async () => {
      while (probeHealth && !done) {
        const t = performance.now();
        await get(healthAgent, `${obsd.url}/api/health`);
        latencies.push(performance.now() - t);
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
    })();
    const pid = obsd.child.pid as number;
    const threadsBefore = threadCpuSeconds(pid);
    const started = performance.now();
    await send(bodies);
    const seconds = (performance.now() - started) / 1000;
    const spans = bodies.length * SPANS_PER_BATCH;
    const cpuUs = threadCpuPerUnit(threadsBefore, threadCpuSeconds(pid), spans).reduce((sum, us) => sum + us, 0);
    done = true;
    await sampler;
    return {
      spansPerSecond: spans / seconds,
      healthMs: latencies,
      peakRssMb: peakRss(pid) / 1024 / 1024,
      cpuUsPerSpan: cpuUs,
    };
  } finally {
    agent.destroy();
    healthAgent.destroy();
    await obsd.stop();
  }
}

interface EncodingRounds {
  throughput: EndToEnd[];
  underHealthLoop: EndToEnd[];
}

async function main(): Promise<void> {
  const nowNs = BigInt(Date.now()) * 1_000_000n;
  console.log(
    `bench/ingest: ${BATCHES} batches x ${SPANS_PER_BATCH} spans (after ${WARMUP_BATCHES} warm-up batches), 10 indexed attributes each, ${CONCURRENCY} requests in flight, ${ROUNDS} rounds`,
  );
  const workload = makeWorkload(BATCHES, 1, nowNs);
  const warmup = makeWorkload(WARMUP_BATCHES, 2, nowNs);
  const raw: number[] = [];
  const proto: EncodingRounds = { throughput: [], underHealthLoop: [] };
  const json: EncodingRounds = { throughput: [], underHealthLoop: [] };
  const grpc: EncodingRounds = { throughput: [], underHealthLoop: [] };
  const PROTOBUF = { http: "application/x-protobuf" };
  const JSON_TYPE = { http: "application/json" };
  const spansPerSecond = (run: EndToEnd | undefined) => Math.round(run?.spansPerSecond ?? 0);
  for (let round = 1; round <= ROUNDS; round++) {
    raw.push(await rawCeiling(warmup.json, workload.json, nowNs));
    proto.throughput.push(await endToEnd(warmup.protobuf, workload.protobuf, PROTOBUF, false));
    grpc.throughput.push(await endToEnd(warmup.protobuf, workload.protobuf, "grpc", false));
    json.throughput.push(await endToEnd(warmup.json, workload.json, JSON_TYPE, false));
    proto.underHealthLoop.push(await endToEnd(warmup.protobuf, workload.protobuf, PROTOBUF, true));
    grpc.underHealthLoop.push(await endToEnd(warmup.protobuf, workload.protobuf, "grpc", true));
    json.underHealthLoop.push(await endToEnd(warmup.json, workload.json, JSON_TYPE, true));
    console.log(
      `round ${round}: raw ${Math.round(raw.at(-1) as number)}, protobuf ${spansPerSecond(proto.throughput.at(-1))}, grpc ${spansPerSecond(grpc.throughput.at(-1))}, json ${spansPerSecond(json.throughput.at(-1))} spans/s; under the health loop: protobuf ${spansPerSecond(proto.underHealthLoop.at(-1))}, grpc ${spansPerSecond(grpc.underHealthLoop.at(-1))}, json ${spansPerSecond(json.underHealthLoop.at(-1))}`,
    );
  }
  const rawMedian = median(raw);
  const summarize = ({ throughput, underHealthLoop }: EncodingRounds) => {
    const spansPerSec = median(throughput.map((r) => r.spansPerSecond));
    const p99s = underHealthLoop.map((r) => percentile(r.healthMs, 99));
    return {
      spansPerSec: Math.round(spansPerSec),
      ofRawCeiling: round(spansPerSec / rawMedian, 3),
      rounds: throughput.map((r) => Math.round(r.spansPerSecond)),
      cpuUsPerSpan: round(median(throughput.map((r) => r.cpuUsPerSpan))),
      underHealthLoop: {
        spansPerSec: Math.round(median(underHealthLoop.map((r) => r.spansPerSecond))),
        rounds: underHealthLoop.map((r) => Math.round(r.spansPerSecond)),
        healthSamples: underHealthLoop.map((r) => r.healthMs.length),
      },
      healthP50Ms: round(median(underHealthLoop.map((r) => percentile(r.healthMs, 50))), 2),
      healthP99Ms: round(median(p99s), 2),
      healthP99MsWorst: round(Math.max(...p99s), 2),
      peakRssMb: round(Math.max(...throughput.concat(underHealthLoop).map((r) => r.peakRssMb))),
    };
  };
  const result = {
    benchmark: "ingest",
    spans: workload.spans,
    warmupSpans: warmup.spans,
    concurrency: CONCURRENCY,
    rounds: ROUNDS,
    rawCeilingSpansPerSec: Math.round(rawMedian),
    rawCeilingRounds: raw.map(Math.round),
    protobuf: summarize(proto),
    grpc: summarize(grpc),
    json: summarize(json),
    grpcOfHttpProtobuf: round(
      median(grpc.throughput.map((r) => r.spansPerSecond)) / median(proto.throughput.map((r) => r.spansPerSecond)),
      3,
    ),
    targets: {
      endToEndSpansPerSec: 20_000,
      ofRawCeiling: 0.75,
      healthP99Ms: 20,
      peakRssMb: 250,
      grpcOfHttpProtobuf: 0.9,
    },
  };
  console.table({
    protobuf: {
      "spans/s": result.protobuf.spansPerSec,
      "of raw": result.protobuf.ofRawCeiling,
      "obsd CPU µs/span": result.protobuf.cpuUsPerSpan,
      "spans/s, health loop": result.protobuf.underHealthLoop.spansPerSec,
      "health p99 ms": result.protobuf.healthP99Ms,
      "peak RSS MB": result.protobuf.peakRssMb,
    },
    grpc: {
      "spans/s": result.grpc.spansPerSec,
      "of raw": result.grpc.ofRawCeiling,
      "obsd CPU µs/span": result.grpc.cpuUsPerSpan,
      "spans/s, health loop": result.grpc.underHealthLoop.spansPerSec,
      "health p99 ms": result.grpc.healthP99Ms,
      "peak RSS MB": result.grpc.peakRssMb,
    },
    json: {
      "spans/s": result.json.spansPerSec,
      "of raw": result.json.ofRawCeiling,
      "obsd CPU µs/span": result.json.cpuUsPerSpan,
      "spans/s, health loop": result.json.underHealthLoop.spansPerSec,
      "health p99 ms": result.json.healthP99Ms,
      "peak RSS MB": result.json.peakRssMb,
    },
  });
  console.log(JSON.stringify(result));
}

await main();

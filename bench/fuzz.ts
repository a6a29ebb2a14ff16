/**
 * The long fuzz run (the test suite runs a fast subset): seeded mutated and random OTLP
 * payloads against the decoders and a live obsd, with the collector's resident memory before
 * and after. Prints its figures; exits 1 on any finding.
 *   BENCH_DECODER_CASES (default 20000), BENCH_HTTP_CASES (default 10000), BENCH_SEED.
 */
import { performance } from "node:perf_hooks";
import { isDeepStrictEqual } from "node:util";
import { gzipSync } from "node:zlib";
import { decodeLogRequest, decodeTraceRequest } from "../daemon/otlp/decode-request.js";
import { decodeTraceJsonNatively } from "../daemon/otlp/native-json-traces.js";
import { PayloadError } from "../daemon/otlp/payload-error.js";
import { packSpans } from "../daemon/store/packed-batch.js";
import { startCollectorProcess } from "../test/helpers/collector-process.js";
import { fuzzPayloads, seededRandom } from "../test/helpers/fuzz-payloads.js";
import { http } from "../test/helpers/http.js";
import { percentile, round, rssMiB } from "./measure.js";

const SEED = Number(process.env.BENCH_SEED ?? 7);
const DECODER_CASES = Number(process.env.BENCH_DECODER_CASES ?? 20_000);
const HTTP_CASES = Number(process.env.BENCH_HTTP_CASES ?? 10_000);

async function main(): Promise<void> {
  const findings: string[] = [];
  let refused = 0;
  let started = performance.now();
  let nativeTaken = 0;
  for (const payload of fuzzPayloads(SEED, DECODER_CASES)) {
    // The native JSON decoder must give the JavaScript decoder's batch whenever it takes one.
    const native =
      payload.signal === "traces" && payload.format === "json" ? decodeTraceJsonNatively(payload.body) : undefined;
    if (native !== undefined) nativeTaken++;
    try {
      if (payload.signal === "traces") {
        const batch = decodeTraceRequest(payload.body, payload.format);
        if (native !== undefined && !isDeepStrictEqual(native, packSpans(batch)))
          findings.push(`native decoder: ${payload.recipe}: a different batch from the JavaScript decoder's`);
      } else decodeLogRequest(payload.body, payload.format);
    } catch (error) {
      if (native !== undefined) findings.push(`native decoder: ${payload.recipe}: took a request JavaScript refuses`);
      if (error instanceof PayloadError) refused++;
      else findings.push(`decoder: ${payload.signal} ${payload.recipe}: ${(error as Error).message}`);
    }
  }
  console.log(
    `decoders: ${DECODER_CASES} payloads (seed ${SEED}) in ${round(performance.now() - started)} ms: ${refused} refused with 400, ${DECODER_CASES - refused - findings.length} decoded, ${findings.length} other errors; the native JSON decoder took ${nativeTaken} (each must equal JavaScript's)`,
  );

  const obsd = await startCollectorProcess();
  try {
    const random = seededRandom(SEED + 1);
    const statuses = new Map<number, number>();
    const health: number[] = [];
    const warmup = 500;
    let rssAfterWarmup = 0;
    const checkpoints: string[] = [];
    started = performance.now();
    let i = 0;
    for (const payload of fuzzPayloads(SEED + 1, HTTP_CASES)) {
      const gzip = random() < 0.3;
      const res = await http(`${obsd.url}/v1/${payload.signal}`, {
        method: "POST",
        headers: {
          "content-type": payload.format === "json" ? "application/json" : "application/x-protobuf",
          ...(gzip ? { "content-encoding": "gzip" } : {}),
        },
        body: gzip ? gzipSync(payload.body) : payload.body,
      });
      statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
      if (![200, 400, 413, 415].includes(res.status)) {
        findings.push(`http: ${payload.signal} ${payload.recipe}: ${res.status} ${res.body.toString().slice(0, 200)}`);
      }
      if (++i % 100 === 0) {
        const t = performance.now();
        await http(`${obsd.url}/api/health`);
        health.push(performance.now() - t);
      }
      if (i === warmup) rssAfterWarmup = rssMiB(obsd.child.pid as number);
      if (i % Math.ceil(HTTP_CASES / 8) === 0) checkpoints.push(`${i}: ${rssMiB(obsd.child.pid as number)}`);
    }
    const elapsed = performance.now() - started;
    const rssEnd = rssMiB(obsd.child.pid as number);
    const alive = (await http(`${obsd.url}/api/health`)).status === 200;
    if (!alive) findings.push("http: the collector stopped answering health");
    const counts = [...statuses.entries()].sort(([a], [b]) => a - b).map(([status, n]) => `${status}: ${n}`);
    console.log(
      `live obsd: ${HTTP_CASES} requests in ${round(elapsed / 1000)} s (${round(HTTP_CASES / (elapsed / 1000))}/s); statuses ${counts.join(", ")}`,
    );
    console.log(`obsd RSS (MiB) by requests sent: ${checkpoints.join(", ")}`);
    console.log(
      `obsd RSS after ${warmup} requests ${rssAfterWarmup} MiB, after ${HTTP_CASES} ${rssEnd} MiB (${round(rssEnd - rssAfterWarmup)} MiB); health p50 ${round(percentile(health, 50))} ms, p99 ${round(percentile(health, 99))} ms; still up: ${alive}`,
    );
  } finally {
    await obsd.stop();
  }
  for (const finding of findings.slice(0, 20)) console.log(`FINDING ${finding}`);
  console.log(`${findings.length} findings`);
  if (findings.length) process.exitCode = 1;
}

main().catch((error: Error) => {
  console.error(error.stack);
  process.exitCode = 1;
});

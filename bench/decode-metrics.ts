/**
 * bench/decode-metrics: what the decoder thread spends per data point on bench/metrics'
 * requests (OTLP/protobuf, 100 points of ten attributes each), from body bytes to the packed
 * batch as it leaves for the writer: the signal module's `decode`, then the attribute texts'
 * crossing (`leave`), as decode-worker.ts does. The bodies repeat every round, as a
 * collector's series recur every interval, so attribute sets are known by their bytes after
 * the first pass (KnownPointAttributes). Interleaved rounds; prints each round and the median.
 *
 *   npm run bench:decode-metrics   (BENCH_ROUNDS=7 BENCH_INTERVALS=4 by default)
 */
import { performance } from "node:perf_hooks";
import { metrics } from "../daemon/signals/metrics.js";
import { percentile, round } from "./measure.js";
import { protobufBodies, SERIES_PER_SERVICE } from "./metric-workload.js";

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 7);
/** Each service's requests per pass: one per interval. */
const INTERVALS = Number(process.env.BENCH_INTERVALS ?? 4);
const PASSES = 5;

function main(): void {
  const bodies = protobufBodies(INTERVALS, 1_700_000_000_000_000_000n);
  const points = PASSES * bodies.length * SERIES_PER_SERVICE;
  const sender = metrics.crossing?.sender();
  if (sender === undefined) throw new Error("the metrics module has no crossing");
  const decodeOne = (body: Buffer) => {
    const batch = metrics.decode(body, "protobuf");
    sender.leave(batch)();
    return batch;
  };
  // A first pass, untimed: the attribute sets become known, the code warm.
  for (const body of bodies) decodeOne(body);
  console.log(
    `bench/decode-metrics: ${bodies.length} requests of ${SERIES_PER_SERVICE} points, ${PASSES} passes a round, ${ROUNDS} rounds; µs per point`,
  );
  const rounds: number[] = [];
  for (let r = 1; r <= ROUNDS; r++) {
    const started = performance.now();
    for (let pass = 0; pass < PASSES; pass++)
      for (const body of bodies) {
        if (metrics.count(decodeOne(body)) !== SERIES_PER_SERVICE) throw new Error("a request decoded short");
      }
    const microseconds = ((performance.now() - started) * 1000) / points;
    rounds.push(microseconds);
    console.log(`round ${r}: protobuf ${round(microseconds, 3)}`);
  }
  console.log(
    JSON.stringify({
      benchmark: "decode-metrics",
      microsecondsPerPoint: round(percentile(rounds, 50), 3),
      rounds: rounds.map((us) => round(us, 3)),
    }),
  );
}

main();

/**
 * bench/span-id-index: the writer with the span-id index grouped by row-id bucket (schema 3)
 * against the plain index on span_id it replaced, interleaved in one process, 8 requests per
 * commit. Checkpoints run as in obsd (automatic, inside the commit that passes the limit) and
 * count: they are where rewriting scattered index pages costs. The difference grows with the
 * store, so the default store (600 requests, 307,200 spans) is three times the ingest
 * benchmark's.
 *
 *   npm run build && node dist/bench/span-id-index.js     (BENCH_BATCHES=600, BENCH_ROUNDS=3)
 */
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { decodeTraceRequest } from "../daemon/otlp/decode-request.js";
import { openWriteConnection } from "../daemon/store/connection.js";
import { SPAN_ID_BUCKET_SHIFT } from "../daemon/store/schema.js";
import { TelemetryWriter } from "../daemon/store/telemetry-writer.js";
import { tempDir } from "../test/helpers/temp-dir.js";
import { percentile } from "./measure.js";
import { makeWorkload, SPANS_PER_BATCH } from "./span-workload.js";

const BATCHES = Number(process.env.BENCH_BATCHES ?? 600);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const PER_COMMIT = 8;

const LAYOUTS: Record<string, string | null> = {
  [`bucketed (id >> ${SPAN_ID_BUCKET_SHIFT}, the span id's last 4 bytes)`]: null,
  "plain (span_id)": "DROP INDEX spans_by_span_id; CREATE INDEX spans_by_span_id ON spans (span_id)",
};

function measure(batches: ReturnType<typeof decodeTraceRequest>[], layout: string | null, nowNs: bigint): number {
  const dir = tempDir("obs-bench-span-id-");
  const { db } = openWriteConnection(join(dir.path, "store.sqlite"));
  if (layout) db.exec(layout);
  const writer = new TelemetryWriter(db, 0n);
  const started = performance.now();
  for (let i = 0; i < batches.length; i += PER_COMMIT) {
    writer.transaction(() => {
      for (const batch of batches.slice(i, i + PER_COMMIT)) writer.writeSpans(batch, nowNs);
    });
  }
  const seconds = (performance.now() - started) / 1000;
  db.close();
  dir.cleanup();
  return Math.round((batches.length * SPANS_PER_BATCH) / seconds);
}

const nowNs = BigInt(Date.now()) * 1_000_000n;
const batches = makeWorkload(BATCHES, 1, nowNs).protobuf.map((body) => decodeTraceRequest(body, "protobuf"));
console.log(
  `bench/span-id-index: ${BATCHES * SPANS_PER_BATCH} spans, ${PER_COMMIT} requests per commit, ${ROUNDS} rounds`,
);
const rounds = new Map<string, number[]>();
for (let round = 0; round < ROUNDS; round++) {
  for (const [name, layout] of Object.entries(LAYOUTS)) {
    const spansPerSec = measure(batches, layout, nowNs);
    rounds.set(name, [...(rounds.get(name) ?? []), spansPerSec]);
    console.log(`round ${round + 1}: ${name} ${spansPerSec} spans/s`);
  }
}
const results = [...rounds].map(([layout, runs]) => ({ layout, spansPerSec: percentile(runs, 50), rounds: runs }));
console.table(results);
console.log(JSON.stringify({ benchmark: "span-id-index", spans: BATCHES * SPANS_PER_BATCH, results }));

/**
 * bench/decode: what the decoder thread spends per span on the ingest workload's requests, from
 * body bytes to the packed batch posted to the writer, for each decoder:
 *   - OTLP/JSON, native (simdjson in C++, then the batch assembled in JavaScript);
 *   - OTLP/JSON, JavaScript (JSON.parse, the walker, packSpans), the reference;
 *   - OTLP/protobuf (read from the bytes in JavaScript, packSpans).
 * Interleaved rounds; prints each round and the medians.   BENCH_ROUNDS (default 5).
 */
import { performance } from "node:perf_hooks";
import { decodeTraceRequest } from "../daemon/otlp/decode-request.js";
import { decodeTraceJsonNatively, nativeJsonDecoderLoaded } from "../daemon/otlp/native-json-traces.js";
import { type PackedSpanBatch, packSpans } from "../daemon/store/packed-batch.js";
import { percentile, round } from "./measure.js";
import { makeWorkload, SPANS_PER_BATCH } from "./span-workload.js";

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const BATCHES = 40;
const PASSES = 5;

interface Decoder {
  name: string;
  encoding: "json" | "protobuf";
  decode(body: Buffer): PackedSpanBatch | undefined;
}

const DECODERS: Decoder[] = [
  { name: "JSON native", encoding: "json", decode: decodeTraceJsonNatively },
  { name: "JSON JavaScript", encoding: "json", decode: (body) => packSpans(decodeTraceRequest(body, "json")) },
  { name: "protobuf", encoding: "protobuf", decode: (body) => packSpans(decodeTraceRequest(body, "protobuf")) },
];

function main(): void {
  if (!nativeJsonDecoderLoaded) throw new Error("the native decoder is not built: run npm install");
  const workload = makeWorkload(BATCHES, 1, 1_700_000_000_000_000_000n);
  const spans = PASSES * BATCHES * SPANS_PER_BATCH;
  console.log(
    `bench/decode: ${BATCHES} requests of ${SPANS_PER_BATCH} spans, ${PASSES} passes a round, ${ROUNDS} rounds; µs per span`,
  );
  const results = new Map<string, number[]>(DECODERS.map((d) => [d.name, []]));
  for (let r = 1; r <= ROUNDS; r++) {
    const line: string[] = [];
    for (const decoder of DECODERS) {
      const bodies = workload[decoder.encoding];
      const started = performance.now();
      for (let pass = 0; pass < PASSES; pass++)
        for (const body of bodies) {
          if (decoder.decode(body) === undefined) throw new Error(`${decoder.name} declined a workload request`);
        }
      const microseconds = ((performance.now() - started) * 1000) / spans;
      results.get(decoder.name)?.push(microseconds);
      line.push(`${decoder.name} ${round(microseconds, 2)}`);
    }
    console.log(`round ${r}: ${line.join(" | ")}`);
  }
  const medians = Object.fromEntries([...results].map(([name, values]) => [name, round(percentile(values, 50), 2)]));
  console.log(JSON.stringify({ benchmark: "decode", microsecondsPerSpan: medians }));
}

main();

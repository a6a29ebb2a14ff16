/**
 * bench/store-writes: the writer alone (no HTTP, no threads) on the ingest workload, at
 * several requests per commit: spans/s and pages written to the WAL per commit. Pages per
 * commit is the number the schema's index layout decides (see docs/architecture.md), and,
 * unlike time, it does not depend on how busy the machine is.
 *
 *   npm run build && node dist/bench/store-writes.js     (BENCH_BATCHES=200 by default)
 */
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { decodeTraceRequest } from "../daemon/otlp/decode-request.js";
import { openWriteConnection } from "../daemon/store/connection.js";
import { TelemetryWriter } from "../daemon/store/telemetry-writer.js";
import { tempDir } from "../test/helpers/temp-dir.js";
import { makeWorkload, SPANS_PER_BATCH } from "./span-workload.js";

const BATCHES = Number(process.env.BENCH_BATCHES ?? 200);

interface Result {
  requestsPerCommit: number;
  spansPerSec: number;
  walPagesPerCommit: number;
  walBytesPerSpan: number;
}

function measure(batches: ReturnType<typeof decodeTraceRequest>[], perCommit: number, nowNs: bigint): Result {
  const dir = tempDir("obs-bench-store-");
  const { db } = openWriteConnection(join(dir.path, "store.sqlite"));
  // Checkpoint by hand so every page written to the WAL is counted once.
  db.pragma("wal_autocheckpoint = 0");
  const writer = new TelemetryWriter(db);
  let pages = 0;
  let commits = 0;
  let busyMs = 0;
  for (let i = 0; i < batches.length; i += perCommit) {
    const group = batches.slice(i, i + perCommit);
    const started = performance.now();
    writer.transaction(() => {
      for (const batch of group) writer.writeSpans(batch, nowNs);
    });
    busyMs += performance.now() - started;
    commits++;
    const [, walPages] = db.prepare("PRAGMA wal_checkpoint(PASSIVE)").raw().get() as [bigint, bigint, bigint];
    pages += Number(walPages);
    db.pragma("wal_checkpoint(TRUNCATE)");
  }
  const spans = batches.length * SPANS_PER_BATCH;
  const pageSize = Number(db.pragma("page_size", { simple: true }));
  db.close();
  dir.cleanup();
  return {
    requestsPerCommit: perCommit,
    spansPerSec: Math.round(spans / (busyMs / 1000)),
    walPagesPerCommit: Math.round(pages / commits),
    walBytesPerSpan: Math.round((pages * pageSize) / spans),
  };
}

const nowNs = BigInt(Date.now()) * 1_000_000n;
const workload = makeWorkload(BATCHES, 1, nowNs);
const batches = workload.protobuf.map((body) => decodeTraceRequest(body, "protobuf"));
console.log(`bench/store-writes: ${BATCHES} requests x ${SPANS_PER_BATCH} spans, 10 indexed attributes each`);
const results = [1, 4, 8].map((perCommit) => measure(batches, perCommit, nowNs));
console.table(results);
console.log(JSON.stringify({ benchmark: "store-writes", results }));

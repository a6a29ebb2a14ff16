/**
 * bench/store-writes: the writer alone (no HTTP, no threads) on the ingest workload: spans/s
 * and pages written to the WAL per commit, first at several requests per commit, then with
 * commits of 8 requests as the store grows, with every span in one minute (as bench/ingest)
 * and with time moving on as the store grows. Pages per commit is the number the schema's index
 * layout decides (see docs/architecture.md), and, unlike time, it does not depend on how busy
 * the machine is.
 *
 *   npm run build && node dist/bench/store-writes.js
 *   (BENCH_BATCHES=200 requests per measurement; BENCH_GROWTH_STAGES=5 stages of growth)
 */
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import type Database from "better-sqlite3";
import { decodeTraceRequest } from "../daemon/otlp/decode-request.js";
import type { SpanBatch } from "../daemon/otlp/records.js";
import { openWriteConnection } from "../daemon/store/connection.js";
import { TelemetryWriter } from "../daemon/store/telemetry-writer.js";
import { tempDir } from "../test/helpers/temp-dir.js";
import { makeWorkload, SPANS_PER_BATCH } from "./span-workload.js";

const BATCHES = Number(process.env.BENCH_BATCHES ?? 200);
const GROWTH_STAGES = Number(process.env.BENCH_GROWTH_STAGES ?? 5);

interface Store {
  db: Database.Database;
  writer: TelemetryWriter;
  close(): void;
}

function openStore(): Store {
  const dir = tempDir("obs-bench-store-");
  const { db } = openWriteConnection(join(dir.path, "store.sqlite"));
  // Checkpoint by hand so every page written to the WAL is counted once.
  db.pragma("wal_autocheckpoint = 0");
  return {
    db,
    writer: new TelemetryWriter(db, 0n),
    close() {
      db.close();
      dir.cleanup();
    },
  };
}

/** Writes `batches` `perCommit` at a time; returns the time spent in commits and the WAL pages they wrote. */
function writeCounting(store: Store, batches: SpanBatch[], perCommit: number, nowNs: bigint) {
  let pages = 0;
  let commits = 0;
  let busyMs = 0;
  for (let i = 0; i < batches.length; i += perCommit) {
    const group = batches.slice(i, i + perCommit);
    const started = performance.now();
    store.writer.transaction(() => {
      for (const batch of group) store.writer.writeSpans(batch, nowNs);
    });
    busyMs += performance.now() - started;
    commits++;
    const [, walPages] = store.db.prepare("PRAGMA wal_checkpoint(PASSIVE)").raw().get() as [bigint, bigint, bigint];
    pages += Number(walPages);
    store.db.pragma("wal_checkpoint(TRUNCATE)");
  }
  const spans = batches.length * SPANS_PER_BATCH;
  const pageSize = Number(store.db.pragma("page_size", { simple: true }));
  return {
    spansPerSec: Math.round(spans / (busyMs / 1000)),
    walPagesPerCommit: Math.round(pages / commits),
    walBytesPerSpan: Math.round((pages * pageSize) / spans),
  };
}

function decode(seed: number, nowNs: bigint): SpanBatch[] {
  return makeWorkload(BATCHES, seed, nowNs).protobuf.map((body) => decodeTraceRequest(body, "protobuf"));
}

const nowNs = BigInt(Date.now()) * 1_000_000n;
console.log(`bench/store-writes: ${BATCHES} requests x ${SPANS_PER_BATCH} spans, 10 indexed attributes each`);
const batches = decode(1, nowNs);
const perCommit = [1, 4, 8].map((requests) => {
  const store = openStore();
  try {
    return { requestsPerCommit: requests, ...writeCounting(store, batches, requests, nowNs) };
  } finally {
    store.close();
  }
});
console.table(perCommit);

/**
 * One store keeps growing: each stage writes BATCHES new requests (new ids), 8 per commit. With
 * `minutesPerStage` 0 every span starts within the same minute, as in bench/ingest, so the
 * indexes by start time take new entries all over; a store that grows over time writes each
 * stage's minute after the last one's.
 */
function growStore(minutesPerStage: number) {
  console.log(
    `As the store grows (${GROWTH_STAGES} stages, 8 requests per commit, ${
      minutesPerStage === 0 ? "every span in the same minute" : `each stage ${minutesPerStage} minute later`
    }):`,
  );
  const store = openStore();
  const growth = [];
  for (let stage = 1; stage <= GROWTH_STAGES; stage++) {
    const stageNs = nowNs + BigInt(stage * minutesPerStage) * 60_000_000_000n;
    const result = writeCounting(store, decode(100 + stage, stageNs), 8, stageNs);
    growth.push({ spansStored: stage * BATCHES * SPANS_PER_BATCH, ...result });
    console.log(JSON.stringify(growth.at(-1)));
  }
  const largest = (
    store.db.prepare("SELECT name, count(*) AS pages FROM dbstat GROUP BY name ORDER BY pages DESC LIMIT 8").all() as {
      name: string;
      pages: bigint;
    }[]
  ).map(({ name, pages }) => ({ name, pages: Number(pages) }));
  store.close();
  console.table(growth);
  console.log(`Largest b-trees (pages): ${largest.map((t) => `${t.name} ${t.pages}`).join(", ")}`);
  return { minutesPerStage, growth, largest };
}

const growth = [growStore(0), growStore(1)];
console.log(JSON.stringify({ benchmark: "store-writes", perCommit, growth }));

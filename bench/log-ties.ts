/**
 * bench/log-ties: a page of log records when many share one time. Since schema 18 the index by
 * time orders the records of one nanosecond by a hash, not by id, so a page sorts such a tie
 * before its LIMIT (migrations/v018-log-times.ts). The largest ties come from records with no
 * time of their own, which all take the time their request was received; records stamped to
 * the second by their source make smaller ones. This times, in process, the newest page of 50
 * over `BENCH_TIED` such records (one store, written as obsd's writer writes), beside a page of
 * the same store's records whose times differ.
 *
 *   npm run bench:log-ties   (BENCH_TIED=50000 BENCH_RUNS=21)
 */
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { decodeLogRequest } from "../daemon/otlp/decode-request.js";
import { SqliteReader } from "../daemon/query/sqlite-reader.js";
import { openWriteConnection } from "../daemon/store/connection.js";
import { TelemetryWriter } from "../daemon/store/telemetry-writer.js";
import { tempDir } from "../test/helpers/temp-dir.js";
import { percentile, round } from "./measure.js";

const TIED = Number(process.env.BENCH_TIED ?? 50_000);
const RUNS = Number(process.env.BENCH_RUNS ?? 21);
const PER_REQUEST = 10_000;
const SECOND_NS = 1_000_000_000n;

function request(records: { timeNs?: bigint; body: string }[]): Buffer {
  const logRecords = records.map(({ timeNs, body }) => ({
    ...(timeNs === undefined ? {} : { timeUnixNano: timeNs.toString() }),
    body: { stringValue: body },
  }));
  const resource = { attributes: [{ key: "service.name", value: { stringValue: "bench" } }] };
  return Buffer.from(
    JSON.stringify({ resourceLogs: [{ resource, scopeLogs: [{ scope: { name: "bench" }, logRecords }] }] }),
  );
}

function main(): void {
  const dir = tempDir("obs-bench-log-ties-");
  try {
    const { db } = openWriteConnection(join(dir.path, "ties.sqlite"));
    const writer = new TelemetryWriter(db, 0n);
    const nowNs = BigInt(Date.now()) * 1_000_000n;
    const receivedNs = nowNs - 60n * SECOND_NS;
    // The tie: records with no time, received at one moment (in requests of 10,000).
    for (let sent = 0; sent < TIED; sent += PER_REQUEST) {
      const records = Array.from({ length: Math.min(PER_REQUEST, TIED - sent) }, (_, i) => ({
        body: `record ${sent + i} with no time of its own`,
      }));
      const batch = decodeLogRequest(request(records), "json");
      writer.transaction(() => writer.writeLogs(batch, receivedNs));
    }
    // As many records with times of their own, a microsecond apart, after it.
    for (let sent = 0; sent < TIED; sent += PER_REQUEST) {
      const records = Array.from({ length: Math.min(PER_REQUEST, TIED - sent) }, (_, i) => ({
        timeNs: receivedNs + SECOND_NS + BigInt(sent + i) * 1_000n,
        body: `record ${sent + i} with a time`,
      }));
      const batch = decodeLogRequest(request(records), "json");
      writer.transaction(() => writer.writeLogs(batch, nowNs));
    }
    const reader = new SqliteReader(db);
    const pageMs = (fromNs: bigint, toNs: bigint) => {
      const times: number[] = [];
      for (let run = -2; run < RUNS; run++) {
        const started = performance.now();
        const { items } = reader.logs({ attrs: [], attrContains: [], page: { fromNs, toNs, limit: 50 } });
        if (items.length !== 50) throw new Error(`a page held ${items.length} records`);
        if (run >= 0) times.push(performance.now() - started);
      }
      return round(percentile(times, 50), 2);
    };
    console.log(`bench/log-ties: ${TIED} records of one time, ${TIED} of distinct times; a page of 50, p50 of ${RUNS}`);
    console.table({
      "records of one time (no time of their own)": { "page ms": pageMs(receivedNs, receivedNs) },
      "records of distinct times": { "page ms": pageMs(receivedNs + SECOND_NS, nowNs) },
    });
    db.close();
  } finally {
    dir.cleanup();
  }
}

main();

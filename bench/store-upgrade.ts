/**
 * Store upgrade: how fast a store of the previous schema version is brought to this one, in
 * spans per second, with what the upgrade prints and the file's bytes per span before and after.
 *
 *   npm run bench:upgrade        (BENCH_TRACES, BENCH_LOGS and BENCH_DB as for bench/query;
 *                                 BENCH_FROM: the version to upgrade from, the previous one unless set)
 *
 * The store is bench/query's dataset written by this build, its postings as the writer writes
 * them (not packed), copied at the previous version as that version kept it
 * (test/helpers/store.ts copyAtVersion), then upgraded as obsd's writer opens it
 * (openWriteConnection), with obsd's own progress lines. Target (issue 40): at least 50,000
 * spans per second. Then the posting buckets are packed as obsd's writer packs them after the
 * upgrade, in the background (posting-packer.ts), and the file measured again.
 */
import { statSync } from "node:fs";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import Database from "better-sqlite3";
import { openWriteConnection } from "../daemon/store/connection.js";
import { PostingPacker } from "../daemon/store/posting-packer.js";
import { SCHEMA_VERSION } from "../daemon/store/schema.js";
import { storeUpgradeProgressNotice, storeUpgradeStepNotice } from "../shared/store-upgrade.js";
import { copyAtVersion } from "../test/helpers/store.js";
import { tempDir } from "../test/helpers/temp-dir.js";
import { round } from "./measure.js";
import { loadOrBuildDataset } from "./query-dataset.js";

const TRACES = Number(process.env.BENCH_TRACES ?? 200_000);
const LOGS = Number(process.env.BENCH_LOGS ?? 1_000_000);
const FROM = Number(process.env.BENCH_FROM ?? SCHEMA_VERSION - 1);

function fileBytes(path: string): number {
  let bytes = statSync(path).size;
  try {
    bytes += statSync(`${path}-wal`).size;
  } catch {}
  return bytes;
}

function main(): void {
  const dir = tempDir();
  try {
    const sourcePath = process.env.BENCH_DB ?? join(dir.path, "query.sqlite");
    const info = loadOrBuildDataset("bench/store-upgrade", sourcePath, TRACES, LOGS, { packPostings: false });
    const source = new Database(sourcePath, { readonly: true });
    // The copy reads the source as this build's schema: a store another build wrote (BENCH_DB)
    // would be copied wrong, and the figures with it.
    const version = Number(source.pragma("user_version", { simple: true }));
    if (version !== SCHEMA_VERSION) {
      throw new Error(`${sourcePath} is at schema version ${version}; this bench copies one at ${SCHEMA_VERSION}`);
    }
    const path = join(dir.path, `v${FROM}.sqlite`);
    const copyStarted = performance.now();
    copyAtVersion(source, path, FROM).close();
    source.close();
    // A store obsd wrote is in WAL mode, which the file keeps: the upgrade runs in it.
    const copy = new Database(path);
    copy.pragma("journal_mode = WAL");
    copy.pragma("wal_checkpoint(TRUNCATE)");
    copy.close();
    const before = fileBytes(path);
    console.log(
      `copied at schema version ${FROM} in ${round((performance.now() - copyStarted) / 1000, 1)} s: ${info.spans} spans, ${info.logs} logs, ${round(before / info.spans, 1)} bytes per span of file`,
    );
    const stepMs = new Map<number, number>();
    let saidAt = 0;
    const started = performance.now();
    // The connection obsd's writer opens, which runs the upgrade.
    const { db } = openWriteConnection(path, 0, {
      onStep: (migration, ms) => {
        stepMs.set(migration.version, ms);
        console.error(storeUpgradeStepNotice(migration.version, migration.description, ms));
      },
      onProgress: (migration, done, total) => {
        if (performance.now() - saidAt < 2000 && done < total) return;
        saidAt = performance.now();
        console.error(storeUpgradeProgressNotice(migration.version, done, total, migration.progressUnit));
      },
    });
    const seconds = (performance.now() - started) / 1000;
    db.pragma("wal_checkpoint(TRUNCATE)");
    const freePages = Number(db.pragma("freelist_count", { simple: true }));
    const pageSize = Number(db.pragma("page_size", { simple: true }));
    db.pragma("incremental_vacuum");
    db.pragma("wal_checkpoint(TRUNCATE)");
    const after = fileBytes(path);
    // What obsd's writer then does in the background, between commits: pack the full buckets.
    const packer = new PostingPacker(db);
    const packStarted = performance.now();
    let buckets = 0;
    while (packer.packNext()) buckets++;
    const packSeconds = (performance.now() - packStarted) / 1000;
    db.pragma("wal_checkpoint(TRUNCATE)");
    const packFreePages = Number(db.pragma("freelist_count", { simple: true }));
    const packedUsed = fileBytes(path) - packFreePages * pageSize;
    db.close();
    console.table({
      [`upgrade ${FROM} to ${SCHEMA_VERSION}`]: {
        seconds: round(seconds, 2),
        "spans/s": Math.round(info.spans / seconds),
        "records/s (spans and logs)": Math.round((info.spans + info.logs) / seconds),
        "bytes/span of file before": round(before / info.spans, 1),
        "bytes/span of file after (free pages handed back)": round(after / info.spans, 1),
        "free pages left by the copy (MB)": round((freePages * pageSize) / 1e6, 1),
      },
    });
    for (const [version, ms] of stepMs) console.log(`  step ${version}: ${round(ms / 1000, 2)} s`);
    console.table({
      "posting buckets packed after the upgrade": {
        buckets,
        seconds: round(packSeconds, 2),
        "ms per bucket": round((packSeconds * 1000) / Math.max(1, buckets), 1),
        "spans and logs/s": Math.round((info.spans + info.logs) / packSeconds),
        "bytes/span of file in use after": round(packedUsed / info.spans, 1),
      },
    });
  } finally {
    dir.cleanup();
  }
}

main();

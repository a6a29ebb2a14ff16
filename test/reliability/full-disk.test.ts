/**
 * Full disk: obsd's database on a real, small filesystem (tmpfs). When the disk fills, writes
 * fail with a 500 that says so, health shows it, reads keep working, the file stays intact,
 * and ingestion resumes by itself when space returns. With a size cap that fits the disk,
 * retention keeps the file (and its write-ahead log) on it under sustained ingestion.
 *
 * Mounting needs root; where it is refused these tests are skipped with the reason, and the
 * same failure path is covered through SQLite's page limit in test/unit/store/write-failure.test.ts.
 */
import { randomBytes } from "node:crypto";
import { join } from "node:path";
import Database from "better-sqlite3";
import { expect } from "chai";
import { idHex } from "../../daemon/store/stored-ids.js";
import { fileSize } from "../../shared/file-size.js";
import { type CollectorProcess, startCollectorProcess } from "../helpers/collector-process.js";
import { http, postJson } from "../helpers/http.js";
import { traceRequest } from "../helpers/otlp-builders.js";
import { CannotMountError, mountSmallDisk, type SmallDisk } from "../helpers/small-disk.js";
import { tempDir } from "../helpers/temp-dir.js";

const MiB = 1024 * 1024;

/** One batch of spans with unique ids and a few hundred bytes each. */
function spanBatch(size: number) {
  const traceId = randomBytes(16).toString("hex");
  const now = BigInt(Date.now()) * 1_000_000n;
  return Array.from({ length: size }, (_, i) => ({
    traceId,
    spanId: randomBytes(8).toString("hex"),
    name: `op-${i % 5}`,
    startNs: now + BigInt(i),
    attributes: { payload: "x".repeat(200), n: i },
  }));
}

describe("full disk (obsd on a small tmpfs)", function () {
  this.timeout(120_000);
  let disk: SmallDisk | null = null;
  let obsd: CollectorProcess | null = null;
  // Outlives a restart of the collector, so this suite removes it, not the collector's stop().
  let state: ReturnType<typeof tempDir> | null = null;

  function mount(this: Mocha.Context, mebibytes: number): SmallDisk {
    try {
      disk = mountSmallDisk(mebibytes);
      return disk;
    } catch (error) {
      if (error instanceof CannotMountError) {
        console.log(`      skipped: ${error.message} (the page-limit unit test covers this path)`);
        this.skip();
      }
      throw error;
    }
  }

  afterEach(async () => {
    await obsd?.stop();
    obsd = null;
    disk?.unmount();
    disk = null;
    state?.cleanup();
    state = null;
  });

  it("answers 500 naming the full disk, survives a restart while full, and recovers when space returns", async function () {
    const small = mount.call(this, 6);
    const dbPath = join(small.path, "telemetry.sqlite");
    state = tempDir("obs-it-");
    obsd = await startCollectorProcess({ dbPath, stateDir: state.path });
    const acknowledged = new Set<string>();
    let refusal: { status: number; body: string } | null = null;
    for (let i = 0; i < 1000 && refusal === null; i++) {
      const spans = spanBatch(50);
      const res = await postJson(`${obsd.url}/v1/traces`, traceRequest("disk", spans));
      if (res.status === 200) for (const span of spans) acknowledged.add(span.spanId);
      else refusal = { status: res.status, body: res.body.toString() };
    }
    expect(refusal, "the disk never filled").to.not.equal(null);
    expect(refusal?.status).to.equal(500);
    expect(JSON.parse(refusal?.body ?? "{}").error).to.match(
      /^storage failure: no space left for the database .*telemetry\.sqlite .*nothing from this request was stored/,
    );

    // Still alive: health says writes fail and why; reads work.
    const health = (await http(`${obsd.url}/api/health`)).json();
    expect(health.database.writes).to.include({ ok: false });
    expect(health.database.writes.lastError).to.match(/no space left/);
    expect(health.counts.spans).to.equal(acknowledged.size);
    expect((await http(`${obsd.url}/api/services`)).status).to.equal(200);

    // Stopped and restarted while the disk is still full: it starts, reads work, writes wait.
    expect(await obsd.stop()).to.equal(0);
    expect(obsd.output().match(/writes are failing: no space left for the database/g)).to.have.length(1);
    obsd = await startCollectorProcess({ dbPath, stateDir: state.path });
    expect((await http(`${obsd.url}/api/health`)).json().counts.spans).to.equal(acknowledged.size);
    expect((await postJson(`${obsd.url}/v1/traces`, traceRequest("disk", spanBatch(50)))).status).to.equal(500);

    // Space returns: the next request is stored without a restart.
    small.resize(64);
    const spans = spanBatch(50);
    expect((await postJson(`${obsd.url}/v1/traces`, traceRequest("disk", spans))).status).to.equal(200);
    for (const span of spans) acknowledged.add(span.spanId);
    const after = (await http(`${obsd.url}/api/health`)).json();
    expect(after.database.writes).to.include({ ok: true, failingSince: null });

    expect(await obsd.stop()).to.equal(0);
    const output = obsd.output();
    expect(output).to.match(/obsd: writes are failing: no space left for the database/);
    expect(output).to.match(/obsd: writes succeed again \(1 request failed since /);
    obsd = null;

    const db = new Database(dbPath, { readonly: true });
    try {
      expect(db.pragma("integrity_check", { simple: true })).to.equal("ok");
      const stored = new Set(
        db
          .prepare(`SELECT ${idHex("span_id")} FROM spans`)
          .pluck()
          .all() as string[],
      );
      const missing = [...acknowledged].filter((id) => !stored.has(id));
      expect(missing, "acknowledged spans missing").to.deep.equal([]);
      expect(stored.size).to.equal(acknowledged.size);
    } finally {
      db.close();
    }
  });

  it("keeps the file and its write-ahead log on a small disk when --max-db-size fits it", async function () {
    const small = mount.call(this, 16);
    const dbPath = join(small.path, "telemetry.sqlite");
    obsd = await startCollectorProcess({ dbPath, args: ["--max-db-size", "4MiB", "--retention-interval", "200ms"] });
    const statuses = new Map<number, number>();
    let largest = 0;
    const requests = 600;
    for (let i = 0; i < requests; i++) {
      const res = await postJson(`${obsd.url}/v1/traces`, traceRequest("disk", spanBatch(100)));
      statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
      largest = Math.max(largest, fileSize(dbPath) + fileSize(`${dbPath}-wal`));
    }
    // Far more than the 16 MiB disk holds went through it (60,000 spans of ~300 bytes); none was refused.
    expect(Object.fromEntries(statuses)).to.deep.equal({ 200: requests });
    const health = (await http(`${obsd.url}/api/health`)).json();
    expect(health.counts.spans)
      .to.be.greaterThan(0)
      .and.lessThan(requests * 100);
    expect(health.database.writes.ok).to.equal(true);
    // The cap, one retention batch and the log's eighth of the cap (twice, before truncation).
    expect(largest).to.be.at.most(4 * MiB + 2 * MiB + MiB);
  });
});

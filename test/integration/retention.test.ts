import { statSync } from "node:fs";
import Database from "better-sqlite3";
import { expect } from "chai";
import { POSTING_BUCKET_ROWS } from "../../daemon/store/postings.js";
import { idHex } from "../../daemon/store/stored-ids.js";
import { startCollectorProcess } from "../helpers/collector-process.js";
import { http, postJson } from "../helpers/http.js";
import { hexId, logsRequest, traceRequest } from "../helpers/otlp-builders.js";
import { tempDir } from "../helpers/temp-dir.js";

const MS = 1_000_000n;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function until(check: () => Promise<boolean>, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error("condition not met in time");
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** The round-th 256 spans of a steady stream, each with a 200-byte payload, a millisecond apart from `start`. */
function roundOfSpans(round: number, start: bigint, extra: Record<string, string> = {}) {
  return Array.from({ length: 256 }, (_, i) => {
    const n = round * 256 + i;
    return {
      traceId: hexId(n, 16),
      spanId: hexId(n, 8),
      startNs: start + BigInt(n) * MS,
      attributes: { "request.id": `req-${n}`, payload: "p".repeat(200), ...extra },
    };
  });
}

describe("retention (real obsd)", function () {
  this.timeout(60_000);

  it("deletes telemetry that ages past --retention while keeping newer data", async () => {
    const obsd = await startCollectorProcess({ args: ["--retention", "3s", "--retention-interval", "200ms"] });
    try {
      // Inside the window when sent (older records are refused at once), past it a second later.
      const now = BigInt(Date.now()) * MS;
      const old = now - 2_000n * MS;
      const later = now + 3_600_000n * MS;
      const traces = await postJson(
        `${obsd.url}/v1/traces`,
        traceRequest("ret", [
          { traceId: hexId(1, 16), spanId: hexId(1, 8), startNs: old },
          { traceId: hexId(2, 16), spanId: hexId(2, 8), startNs: later },
        ]),
      );
      expect(traces.json()).to.deep.equal({ accepted: 2 });
      const logs = await postJson(
        `${obsd.url}/v1/logs`,
        logsRequest("ret", [
          { timeNs: old, body: "old" },
          { timeNs: later, body: "new" },
        ]),
      );
      expect(logs.json()).to.deep.equal({ accepted: 2 });
      await until(async () => {
        const { counts } = (await http(`${obsd.url}/api/health`)).json();
        return counts.spans === 1 && counts.logs === 1;
      }, 10_000);
      const { counts } = (await http(`${obsd.url}/api/health`)).json();
      expect(counts).to.include({ spans: 1, logs: 1, traces: 1 });
      const db = new Database(obsd.dbPath, { readonly: true });
      expect(
        db
          .prepare(`SELECT ${idHex("t.trace_id")} FROM spans s JOIN traces t ON t.trace_key = s.trace_key`)
          .pluck()
          .all(),
      ).to.deep.equal([hexId(2, 16)]);
      expect(db.prepare("SELECT body FROM logs").pluck().all()).to.deep.equal(['"new"']);
      db.close();
    } finally {
      await obsd.stop();
    }
  });

  it("deletes metric points that age past --retention on a collector that gets nothing more, counters and all", async () => {
    const obsd = await startCollectorProcess({ args: ["--retention", "3s", "--retention-interval", "200ms"] });
    try {
      // Inside the window when sent, past it a second later; the writer holds such points in
      // its journal (metric-writer.ts), where a pass cannot see them.
      const old = BigInt(Date.now() - 2_000) * MS;
      const gauge = (series: string) => ({
        name: "idle.level",
        gauge: {
          dataPoints: [
            { timeUnixNano: `${old}`, asDouble: 1, attributes: [{ key: "s", value: { stringValue: series } }] },
          ],
        },
      });
      const answer = await postJson(`${obsd.url}/v1/metrics`, {
        resourceMetrics: [
          {
            resource: { attributes: [{ key: "service.name", value: { stringValue: "idle" } }] },
            scopeMetrics: [{ scope: {}, metrics: [gauge("a"), gauge("b")] }],
          },
        ],
      });
      expect(answer.json()).to.deep.equal({ accepted: 2 });
      // Nothing more is sent or queried: /api/health reads the counters as they are.
      await until(async () => {
        const { counts } = (await http(`${obsd.url}/api/health`)).json();
        return counts.points === 0 && counts.series === 0;
      }, 10_000);
    } finally {
      await obsd.stop();
    }
  });

  it("deletes the series as well as the points of metrics that age out one after another on an idle collector", async () => {
    const obsd = await startCollectorProcess({ args: ["--retention", "3s", "--retention-interval", "200ms"] });
    try {
      // Two metrics of one minute, the first past the window a second after it is sent, the
      // second two seconds later: the pass that deletes the first leaves the writer refolds to
      // do, during which it counts every series as held, and so kept the second's forever.
      while (new Date().getUTCSeconds() < 3 || new Date().getUTCSeconds() > 50) await sleep(200);
      const gauge = (name: string, ageMs: number) => ({
        name,
        gauge: {
          dataPoints: ["a", "b", "c"].map((series) => ({
            timeUnixNano: `${BigInt(Date.now() - ageMs) * MS}`,
            asDouble: 1,
            attributes: [{ key: "s", value: { stringValue: series } }],
          })),
        },
      });
      for (const metric of [gauge("aging.first", 2_000), gauge("aging.second", 0)]) {
        const answer = await postJson(`${obsd.url}/v1/metrics`, {
          resourceMetrics: [
            {
              resource: { attributes: [{ key: "service.name", value: { stringValue: "aging" } }] },
              scopeMetrics: [{ scope: {}, metrics: [metric] }],
            },
          ],
        });
        expect(answer.json()).to.deep.equal({ accepted: 3 });
      }
      // Nothing more is sent or queried: /api/health reads the counters as they are.
      await until(async () => {
        const { counts } = (await http(`${obsd.url}/api/health`)).json();
        return counts.points === 0 && counts.series === 0;
      }, 12_000);
    } finally {
      await obsd.stop();
    }
  });

  it("keeps the file within --max-db-size when --retention reaches before 1970", async () => {
    // 100,000,000 days before now is below the least 64-bit nanosecond time: the age pass
    // failed to bind its cutoff, and the size pass after it never ran.
    const cap = 4 * 1024 * 1024;
    const obsd = await startCollectorProcess({
      args: ["--retention", "100000000d", "--max-db-size", "4MiB", "--retention-interval", "200ms"],
    });
    try {
      const start = BigInt(Date.now()) * MS;
      for (let round = 0; round < 60; round++) {
        const spans = roundOfSpans(round, start);
        expect((await postJson(`${obsd.url}/v1/traces`, traceRequest("long", spans))).status).to.equal(200);
      }
      const health = (await http(`${obsd.url}/api/health`)).json();
      expect(health.counts.spans).to.be.lessThan(60 * 256);
      expect(statSync(obsd.dbPath).size).to.be.at.most(cap + 2 * 1024 * 1024);
      expect(obsd.output()).not.to.include("retention failed");
    } finally {
      await obsd.stop();
    }
  });

  it("shrinks the file to a lowered --max-db-size with the write-ahead log near its usual bound", async () => {
    const state = tempDir("obs-it-");
    try {
      await shrinkToLoweredCap(state.path);
    } finally {
      state.cleanup();
    }
  });

  async function shrinkToLoweredCap(stateDir: string): Promise<void> {
    const first = await startCollectorProcess({ stateDir });
    const start = BigInt(Date.now()) * MS;
    try {
      for (let round = 0; round < 60; round++) {
        const spans = roundOfSpans(round, start, { more: "m".repeat(1200) });
        expect((await postJson(`${first.url}/v1/traces`, traceRequest("big", spans))).status).to.equal(200);
      }
    } finally {
      await first.stop();
    }
    const bigger = statSync(first.dbPath).size;
    expect(bigger).to.be.greaterThan(20 * 1024 * 1024);
    const cap = 2 * 1024 * 1024;
    const second = await startCollectorProcess({
      stateDir,
      dbPath: first.dbPath,
      args: ["--max-db-size", "2MiB", "--retention-interval", "200ms"],
    });
    const walSize = () => {
      try {
        return statSync(`${second.dbPath}-wal`).size;
      } catch {
        return 0;
      }
    };
    try {
      let largestWal = 0;
      const deadline = Date.now() + 40_000;
      while (statSync(second.dbPath).size > cap + 1024 * 1024) {
        expect(Date.now() < deadline, `the file is still ${statSync(second.dbPath).size} bytes`).to.equal(true);
        largestWal = Math.max(largestWal, walSize());
        await sleep(20);
      }
      largestWal = Math.max(largestWal, walSize());
      // Its bound for a 2 MiB cap is 512 KiB; freeing the 20 MiB at once put about 10 MiB in the log.
      expect(largestWal).to.be.at.most(4 * 1024 * 1024);
      expect(second.output()).not.to.include("retention failed");
    } finally {
      await second.stop();
    }
  }

  it("keeps the file within --max-db-size (plus one batch) under sustained ingestion", async () => {
    const cap = 4 * 1024 * 1024;
    const obsd = await startCollectorProcess({ args: ["--max-db-size", "4MiB", "--retention-interval", "200ms"] });
    try {
      const start = BigInt(Date.now()) * MS;
      let largest = 0;
      let sent = 0;
      for (let round = 0; round < 80; round++) {
        const spans = roundOfSpans(round, start, { "http.route": "/items/:id" });
        const res = await postJson(`${obsd.url}/v1/traces`, traceRequest("size", spans));
        expect(res.status).to.equal(200);
        sent += 256;
        largest = Math.max(largest, statSync(obsd.dbPath).size);
      }
      const health = (await http(`${obsd.url}/api/health`)).json();
      // Far more was written than fits; the oldest was trimmed and the newest kept.
      expect(health.counts.spans).to.be.lessThan(sent);
      expect(health.counts.spans).to.be.greaterThan(0);
      // One retention batch (2000 rows) of these spans is well under 2 MiB.
      expect(largest).to.be.at.most(cap + 2 * 1024 * 1024);
      const db = new Database(obsd.dbPath, { readonly: true });
      const newest = db.prepare("SELECT max(start_ns) FROM spans").pluck().safeIntegers(true).get() as bigint;
      expect(newest).to.equal(start + BigInt(sent - 1) * MS);
      // Index entries naming only trimmed rows are gone from every bucket below the oldest live row's.
      const oldest = Number(db.prepare("SELECT min(id) FROM spans").pluck().get());
      expect(Math.floor(oldest / POSTING_BUCKET_ROWS)).to.be.greaterThan(0); // collection really ran
      const stale = db
        .prepare("SELECT count(*) FROM span_postings WHERE bucket < ? AND last_row < ?")
        .pluck()
        .get(Math.floor(oldest / POSTING_BUCKET_ROWS), oldest);
      expect(stale).to.equal(0);
      expect(db.prepare("SELECT min(bucket) FROM span_postings").pluck().get()).to.be.greaterThan(0);
      db.close();
    } finally {
      await obsd.stop();
    }
  });
});

import { copyFileSync } from "node:fs";
import { join } from "node:path";
import { expect } from "chai";
import { FootprintMonitor } from "../../../daemon/store/footprint-monitor.js";
import { measureFootprint, signalOfTable } from "../../../daemon/store/store-footprint.js";
import { hexId, logsRequest, traceRequest } from "../../helpers/otlp-builders.js";
import { testStore } from "../../helpers/store.js";
import { tempDir } from "../../helpers/temp-dir.js";

const NOW_NS = BigInt(Date.now()) * 1_000_000n;

/** Pages of the tables named, and of their indexes, read independently of the code under test. */
function pagesOf(db: ReturnType<typeof testStore>["db"], tables: string[]): number {
  const names = db
    .prepare(`SELECT name FROM sqlite_schema WHERE tbl_name IN (${tables.map(() => "?").join(", ")})`)
    .pluck()
    .all(...tables) as string[];
  return names.reduce(
    (sum, name) =>
      sum + Number(db.prepare("SELECT coalesce(sum(pgsize), 0) FROM dbstat WHERE name = ?").pluck().get(name)),
    0,
  );
}

function fill(store: ReturnType<typeof testStore>): void {
  const spans = Array.from({ length: 200 }, (_, i) => ({
    traceId: hexId(Math.floor(i / 8) + 1, 16),
    spanId: hexId(i + 1, 8),
    startNs: NOW_NS - BigInt(i) * 1_000_000n,
    attributes: { "http.route": `/r/${i % 5}`, "request.id": `req-${i}` },
  }));
  store.writeTraces(traceRequest("checkout", spans));
  store.writeLogs(
    logsRequest(
      "checkout",
      Array.from({ length: 50 }, (_, i) => ({ body: `line ${i}`, timeNs: NOW_NS - BigInt(i) * 1_000n })),
    ),
  );
}

/** The tables of spans and of logs: records, postings in every form, summaries, rollups. */
const SPAN_TABLES = [
  "spans",
  "span_names",
  "span_postings",
  "span_hashed_postings",
  "span_pending_hashes",
  "span_rollups",
  "traces",
  "trace_services",
  "orphan_spans",
];
const LOG_TABLES = ["logs", "log_postings", "log_hashed_postings", "log_pending_hashes", "log_rollups"];

describe("store footprint: bytes per signal", () => {
  it("gives each table to the signal whose records it holds, and the shared ones to none", () => {
    for (const table of SPAN_TABLES) expect(signalOfTable(table), table).to.equal("spans");
    for (const table of LOG_TABLES) expect(signalOfTable(table), table).to.equal("logs");
    for (const table of ["metrics", "metric_series", "metric_series_attributes", "metric_points", "metric_rollups"]) {
      expect(signalOfTable(table), table).to.equal("points");
    }
    for (const table of ["attr_keys", "resources", "scopes", "services", "counters", "meta", "forward_outbox"]) {
      expect(signalOfTable(table), table).to.equal(null);
    }
  });

  it("counts every page of a signal's tables and indexes, with the records counted at the same time", () => {
    const store = testStore();
    try {
      fill(store);
      const footprint = measureFootprint(store.db);
      expect(footprint.records).to.deep.equal({ spans: 200, logs: 50, points: 0 });
      expect(footprint.bytes.spans).to.equal(pagesOf(store.db, SPAN_TABLES));
      expect(footprint.bytes.logs).to.equal(pagesOf(store.db, LOG_TABLES));
      expect(footprint.bytes.spans).to.be.greaterThan(footprint.bytes.logs);
    } finally {
      store.close();
    }
  });
});

describe("footprint monitor: when the store is measured", () => {
  async function measured(monitor: FootprintMonitor, records = { spans: 200, logs: 50, points: 0 }) {
    for (let i = 0; i < 200; i++) {
      const latest = monitor.latest(records);
      if (latest !== null) return latest;
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    throw new Error("no measurement came");
  }

  it("answers null at first, then the measurement its thread made, without waiting for it", async () => {
    const store = testStore();
    const monitor = new FootprintMonitor(store.path);
    try {
      fill(store);
      expect(monitor.latest({ spans: 200, logs: 50, points: 0 })).to.equal(null);
      const latest = await measured(monitor);
      expect(latest.records).to.deep.equal({ spans: 200, logs: 50, points: 0 });
      expect(latest.bytes.spans).to.equal(measureFootprint(store.db).bytes.spans);
    } finally {
      await monitor.close();
      store.close();
    }
  });

  it("measures again when ten minutes old, or when the records moved a tenth at least 15 s after", async () => {
    const store = testStore();
    let nowMs = 1_000_000;
    const monitor = new FootprintMonitor(
      store.path,
      () => {},
      () => nowMs,
    );
    try {
      fill(store);
      const first = await measured(monitor);
      const same = { spans: 200, logs: 50, points: 0 };
      const grown = { spans: 400, logs: 50, points: 0 };
      // Grown, but too soon: the same measurement, and none started.
      nowMs += 5_000;
      expect(monitor.latest(grown)).to.equal(first);
      // Unchanged records after a minute: not due.
      nowMs += 55_000;
      expect(monitor.latest(same)).to.equal(first);
      // Neither asked for a measurement: none comes.
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(monitor.latest(same)).to.equal(first);
      // A tenth more after 15 s: due; the answer is the last one until the new one comes.
      store.writeTraces(
        traceRequest("checkout", [{ traceId: hexId(900, 16), spanId: hexId(900, 8), startNs: NOW_NS }]),
      );
      expect(monitor.latest(grown)).to.equal(first);
      const second = await (async () => {
        for (let i = 0; i < 200; i++) {
          const latest = monitor.latest(grown);
          if (latest !== first) return latest;
          await new Promise((resolve) => setTimeout(resolve, 25));
        }
        throw new Error("no second measurement came");
      })();
      expect(second?.records.spans).to.equal(201);
      // Ten minutes later, even unchanged: due again.
      nowMs += 10 * 60_000;
      monitor.latest({ spans: 201, logs: 50, points: 0 });
      for (let i = 0; i < 200 && monitor.latest({ spans: 201, logs: 50, points: 0 }) === second; i++) {
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
      expect(monitor.latest({ spans: 201, logs: 50, points: 0 })).to.not.equal(second);
    } finally {
      await monitor.close();
      store.close();
    }
  });

  it("tells once why a measurement failed, and waits 15 s before the next try", async () => {
    const dir = tempDir();
    const path = join(dir.path, "not-yet.sqlite");
    let nowMs = 1_000_000;
    const notices: string[] = [];
    const monitor = new FootprintMonitor(
      path,
      (line) => notices.push(line),
      () => nowMs,
    );
    try {
      const records = { spans: 1, logs: 0, points: 0 };
      expect(monitor.latest(records)).to.equal(null);
      for (let i = 0; i < 100 && notices.length === 0; i++) await new Promise((resolve) => setTimeout(resolve, 25));
      expect(notices).to.have.length(1);
      expect(notices[0]).to.match(/^obsd: measuring the store's size per signal failed: /);
      // The store appears; asked again within 15 s, nothing is tried.
      const store = testStore();
      copyFileSync(store.path, path);
      store.close();
      nowMs += 5_000;
      expect(monitor.latest(records)).to.equal(null);
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(monitor.latest(records)).to.equal(null);
      // 15 s after the failure, it is tried again, and succeeds.
      nowMs += 10_000;
      let latest = monitor.latest(records);
      for (let i = 0; i < 200 && latest === null; i++) {
        await new Promise((resolve) => setTimeout(resolve, 25));
        latest = monitor.latest(records);
      }
      expect(latest?.records).to.deep.equal({ spans: 0, logs: 0, points: 0 });
      expect(notices).to.have.length(1);
    } finally {
      await monitor.close();
      dir.cleanup();
    }
  });

  it("closes with a measurement under way, and never measures again", async () => {
    const store = testStore();
    const monitor = new FootprintMonitor(store.path);
    try {
      fill(store);
      monitor.latest({ spans: 200, logs: 50, points: 0 });
      const started = Date.now();
      await monitor.close();
      expect(Date.now() - started).to.be.lessThan(2_000);
      // Closed: never measures again.
      expect(monitor.latest({ spans: 400, logs: 50, points: 0 })).to.equal(null);
    } finally {
      store.close();
    }
  });
});

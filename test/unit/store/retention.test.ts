import { expect } from "chai";
import { PostingPacker } from "../../../daemon/store/posting-packer.js";
import { POSTING_BUCKET_ROWS } from "../../../daemon/store/postings.js";
import { Retention } from "../../../daemon/store/retention.js";
import { idHex, optionalIdHex } from "../../../daemon/store/stored-ids.js";
import { hexId, logsRequest, traceRequest } from "../../helpers/otlp-builders.js";
import { testStore } from "../../helpers/store.js";

const HOUR = 3_600_000_000_000n;
const NOW = 1_700_000_000_000_000_000n;

describe("retention", () => {
  let store: ReturnType<typeof testStore>;
  beforeEach(() => {
    store = testStore();
  });
  afterEach(() => store.close());

  function retention(maxAgeMs: number, maxBytes = 1024 ** 3, batchRows = 1000) {
    return new Retention(store.db, { maxAgeMs, maxBytes, batchRows });
  }

  it("deletes spans and logs older than the age limit, keeping newer ones and exact counts", () => {
    const oldTrace = hexId(1, 16);
    const newTrace = hexId(2, 16);
    store.writeTraces(
      traceRequest("api", [
        { traceId: oldTrace, spanId: hexId(1, 8), startNs: NOW - 3n * HOUR, attributes: { user: "old-only" } },
        { traceId: newTrace, spanId: hexId(2, 8), startNs: NOW - HOUR, attributes: { user: "kept" } },
      ]),
    );
    store.writeLogs(
      logsRequest("api", [
        { timeNs: NOW - 3n * HOUR, body: "old" },
        { timeNs: NOW, body: "new" },
      ]),
    );
    const result = retention(2 * 3_600_000).trimByAge(NOW);
    expect(result).to.deep.equal({ spans: 1, logs: 1, points: 0 });
    expect(
      store.db
        .prepare(`SELECT ${idHex("trace_id")} FROM traces`)
        .pluck()
        .all(),
    ).to.deep.equal([newTrace]);
    expect(store.db.prepare("SELECT body FROM logs").pluck().all()).to.deep.equal(['"new"']);
    expect(store.counters()).to.include({ spans: 1n, traces: 1n, logs: 1n });
    expect(retention(2 * 3_600_000).trimByAge(NOW)).to.deep.equal({ spans: 0, logs: 0, points: 0 });
  });

  it("clamps the age cutoff at time 0 for a window reaching before it, so a pass still runs", () => {
    // 100,000,000 days: now less the window is below -2^63 ns, which SQLite cannot bind.
    const r = retention(100_000_000 * 86_400_000);
    expect(r.ageCutoffNs(NOW)).to.equal(0n);
    store.writeTraces(traceRequest("api", [{ traceId: hexId(1, 16), spanId: hexId(1, 8), startNs: 1n }]));
    store.writeLogs(logsRequest("api", [{ timeNs: 1n, body: "early" }]));
    expect(r.trimByAge(NOW)).to.deep.equal({ spans: 0, logs: 0, points: 0 });
    expect(store.counters()).to.include({ spans: 1n, logs: 1n });
  });

  it("drops index entries of deleted rows once their whole bucket is below the oldest live row", () => {
    const old = Array.from({ length: POSTING_BUCKET_ROWS + 5 }, (_, i) => ({
      traceId: hexId(i, 16),
      spanId: hexId(i, 8),
      startNs: NOW - 3n * HOUR,
      attributes: { kind: "old", id: `o${i}` },
    }));
    store.writeTraces(traceRequest("api", old));
    store.writeTraces(
      traceRequest("api", [
        { traceId: hexId(1, 16), spanId: hexId(99_999, 8), startNs: NOW, attributes: { kind: "new" } },
      ]),
    );
    // Bucket 0 is full: its `id` postings (a value per span) are hashed.
    const packer = new PostingPacker(store.db);
    while (packer.packNext()) {}
    const hashedBuckets = () =>
      store.db
        .prepare("SELECT bucket FROM span_hashed_postings UNION SELECT bucket FROM span_pending_hashes")
        .pluck()
        .all();
    expect(Number(store.db.prepare("SELECT count(*) FROM span_hashed_postings").pluck().get())).to.be.greaterThan(0);
    // A commit's blob of rows written hashed, pending in bucket 0 (as if its bucket were not packed yet).
    store.db.prepare("INSERT INTO span_pending_hashes VALUES (0, 1, 5, x'000000010005')").run();
    expect(hashedBuckets()).to.deep.equal([0n]);
    const r = retention(2 * 3_600_000, 1024 ** 3, 100_000);
    expect(r.trimByAge(NOW).spans).to.equal(POSTING_BUCKET_ROWS + 5);
    expect(hashedBuckets()).to.deep.equal([]);
    // Rows 1..8191 filled bucket 0, whose entries are gone; the six old rows in bucket 1 (the
    // bucket of the oldest live row) keep their entries until that bucket falls behind too:
    // their own ids, and their share of `kind=old` (entries never cross a bucket boundary).
    const values = store.db.prepare("SELECT DISTINCT value FROM span_postings ORDER BY value").pluck().all();
    expect(values).to.deep.equal(["new", "o8191", "o8192", "o8193", "o8194", "o8195", "o8196", "old"]);
    const oldEntries = store.db
      .prepare("SELECT first_row, last_row FROM span_postings WHERE value = 'old'")
      .raw()
      .all();
    expect(oldEntries).to.deep.equal([[8192n, 8197n]]);
  });

  it("refreshes the summary of a trace that keeps some of its spans", () => {
    const traceId = hexId(9, 16);
    store.writeTraces(
      traceRequest("api", [
        { traceId, spanId: hexId(1, 8), startNs: NOW - 3n * HOUR, error: true },
        { traceId, spanId: hexId(2, 8), parentSpanId: hexId(1, 8), startNs: NOW - HOUR },
      ]),
    );
    retention(2 * 3_600_000).trimByAge(NOW);
    const summary = store.db.prepare("SELECT span_count, error_count, start_ns FROM traces").get();
    expect(summary).to.deep.equal({ span_count: 1n, error_count: 0n, start_ns: NOW - HOUR });
  });

  it("refreshes, in one batch, many traces' roots and services and drops those left with no span", () => {
    // 30 traces: an old root (api), an old child (web), a newer child (db). Trace 0 is all old.
    for (let t = 0; t < 30; t++) {
      const traceId = hexId(100 + t, 16);
      const root = hexId(t * 10 + 1, 8);
      // The root ends last, so the refreshed trace ends earlier, with the child that is left.
      const rootSpan = { traceId, spanId: root, name: "GET /", startNs: NOW - 3n * HOUR, durationNs: (5n * HOUR) / 2n };
      store.writeTraces(traceRequest("api", [rootSpan]));
      const web = { traceId, spanId: hexId(t * 10 + 2, 8), parentSpanId: root, startNs: NOW - 3n * HOUR, error: true };
      store.writeTraces(traceRequest("web", [web]));
      const db = { traceId, spanId: hexId(t * 10 + 3, 8), parentSpanId: root, name: "query", startNs: NOW - HOUR };
      store.writeTraces(traceRequest("db", [{ ...db, startNs: t === 0 ? NOW - 3n * HOUR : db.startNs }]));
    }
    expect(retention(2 * 3_600_000).trimByAge(NOW).spans).to.equal(61);
    const summaries = store.db
      .prepare(
        `SELECT ${idHex("trace_id")} AS trace_id, span_count, error_count, start_ns, end_ns, ${optionalIdHex("root_span_id")} AS root_span_id,
          (SELECT name FROM span_names WHERE id = root_name_id) AS root_name FROM traces ORDER BY 1`,
      )
      .all() as Record<string, unknown>[];
    expect(summaries).to.have.length(29);
    expect(summaries[0]).to.deep.equal({
      trace_id: hexId(101, 16),
      span_count: 1n,
      error_count: 0n,
      start_ns: NOW - HOUR,
      end_ns: NOW - HOUR + 1_000_000n,
      root_span_id: null,
      root_name: null,
    });
    const services = store.db
      .prepare("SELECT DISTINCT v.name FROM trace_services ts JOIN services v ON v.id = ts.service_id")
      .pluck()
      .all();
    expect(services).to.deep.equal(["db"]);
    expect(store.db.prepare("SELECT count(*) FROM trace_services").pluck().get()).to.equal(29n);
    expect(store.counters()).to.include({ spans: 29n, traces: 29n });
  });

  it("trims by size in the order spans were stored, so traces go whole instead of leaving many partial ones", () => {
    // Ten traces of four spans, one request each, their spans' start times interleaved: by start
    // time the eight oldest spans belong to eight different traces.
    for (let t = 0; t < 10; t++) {
      const spans = Array.from({ length: 4 }, (_, i) => ({
        traceId: hexId(200 + t, 16),
        spanId: hexId(t * 10 + i + 1, 8),
        startNs: NOW - 3n * HOUR + BigInt(i * 10 + t),
      }));
      store.writeTraces(traceRequest("api", spans));
    }
    expect(retention(30 * 24 * 3_600_000, 1, 8).trimBySize()).to.deep.equal({ spans: 8, logs: 0, points: 0 });
    const traces = store.db
      .prepare(`SELECT ${idHex("trace_id")}, span_count FROM traces ORDER BY trace_key`)
      .raw()
      .all();
    expect(traces).to.deep.equal(Array.from({ length: 8 }, (_, t) => [hexId(202 + t, 16), 4n]));
    expect(store.counters()).to.include({ spans: 32n, traces: 8n });
  });

  const MINUTE = 60_000_000_000n;
  let nextSpan = 0;
  function writeSpans(count: number, startNs: bigint): void {
    const spans = Array.from({ length: count }, () => {
      nextSpan++;
      return { traceId: hexId(nextSpan, 16), spanId: hexId(nextSpan, 8), startNs };
    });
    store.writeTraces(traceRequest("api", spans));
  }
  let nextLog = 0;
  function writeLogs(count: number, timeNs: bigint): void {
    const logs = Array.from({ length: count }, () => ({ timeNs, body: `log ${nextLog++}` }));
    store.writeLogs(logsRequest("api", logs));
  }
  const rows = (table: string) => Number(store.db.prepare(`SELECT count(*) FROM ${table}`).pluck().get());

  it("trims by size the signal whose next rows to go are oldest: older logs before newer spans", () => {
    writeLogs(40, NOW - 30n * MINUTE);
    writeSpans(40, NOW - 20n * MINUTE);
    // A long span sent late: the oldest span by time, stored after the others.
    writeSpans(1, NOW - 60n * MINUTE);
    writeSpans(60, NOW);
    const r = retention(30 * 24 * 3_600_000, 1, 10);
    const batches = Array.from({ length: 8 }, () => r.trimBySize());
    expect(batches.slice(0, 4)).to.deep.equal(Array(4).fill({ spans: 0, logs: 10, points: 0 }));
    expect(batches.slice(4)).to.deep.equal(Array(4).fill({ spans: 10, logs: 0, points: 0 }));
    // The 40 spans timed 20 minutes ago went; the long span and the newest are kept until their turn.
    expect(rows("logs")).to.equal(0);
    expect(store.db.prepare("SELECT min(start_ns) FROM spans").pluck().get()).to.equal(NOW - 60n * MINUTE);
    expect(rows("spans")).to.equal(61);
  });

  it("trims by size both signals in turn when they arrive together, wiping neither", () => {
    // Spans and logs sent side by side, a second apart, then a span sent late with an old start.
    for (let second = 0n; second < 10n; second++) {
      writeSpans(10, NOW + second * 1_000_000_000n);
      writeLogs(10, NOW + second * 1_000_000_000n);
    }
    writeSpans(1, NOW - 60n * MINUTE);
    const r = retention(30 * 24 * 3_600_000, 1, 10);
    for (let batch = 0; batch < 10; batch++) r.trimBySize();
    expect(rows("spans")).to.equal(51);
    expect(rows("logs")).to.equal(50);
    const oldest = (sql: string) => store.db.prepare(sql).pluck().get() as bigint;
    expect(oldest("SELECT min(ts_ns) FROM logs")).to.equal(NOW + 5n * 1_000_000_000n);
    expect(oldest("SELECT min(start_ns) FROM spans WHERE id <= 100")).to.equal(NOW + 5n * 1_000_000_000n);
  });

  it("trims by size a signal whose first stored record is dated in the future as it does any other", () => {
    // A sender with a wrong clock stored first: it must not make the whole table look newest.
    writeLogs(1, NOW + 1000n * 24n * 60n * MINUTE);
    writeLogs(99, NOW - 60n * MINUTE);
    writeSpans(20, NOW);
    const r = retention(30 * 24 * 3_600_000, 1, 10);
    const batches = Array.from({ length: 3 }, () => r.trimBySize(NOW));
    expect(batches).to.deep.equal(Array(3).fill({ spans: 0, logs: 10, points: 0 }));
    expect(rows("spans")).to.equal(20);
  });

  it("trims by size signals whose rows have the same times in turn", () => {
    for (let chunk = 0; chunk < 5; chunk++) {
      writeSpans(10, NOW);
      writeLogs(10, NOW);
    }
    const r = retention(30 * 24 * 3_600_000, 1, 10);
    for (let batch = 0; batch < 4; batch++) r.trimBySize();
    expect({ spans: rows("spans"), logs: rows("logs") }).to.deep.equal({ spans: 30, logs: 30 });
  });

  it("deletes in bounded batches", () => {
    const spans = Array.from({ length: 25 }, (_, i) => ({
      traceId: hexId(i, 16),
      spanId: hexId(i, 8),
      startNs: NOW - 5n * HOUR,
    }));
    store.writeTraces(traceRequest("api", spans));
    const r = retention(3_600_000, 1024 ** 3, 10);
    expect(r.trimByAge(NOW).spans).to.equal(10);
    expect(r.trimByAge(NOW).spans).to.equal(10);
    expect(r.trimByAge(NOW).spans).to.equal(5);
    expect(r.trimByAge(NOW).spans).to.equal(0);
  });

  /** About 2 MiB of logs: 20 requests of 50 records of 2 KB, timed NOW + 0 to 999 ns. */
  function writeLogRounds(): void {
    const body = "x".repeat(2000);
    for (let batch = 0; batch < 20; batch++) {
      const records = Array.from({ length: 50 }, (_, i) => ({
        timeNs: NOW + BigInt(batch * 50 + i),
        body: `${batch}-${i}-${body}`,
      }));
      store.writeLogs(logsRequest("api", records));
    }
  }

  it("trims the oldest telemetry first until the used size is under the cap", () => {
    // The cap leaves 512 KiB to records past what the empty store's tables take (one page each),
    // for about 1 MiB of records.
    const cap = retention(365 * 86_400_000, 1, 100).usedBytes() + 512 * 1024;
    writeLogRounds();
    const r = retention(365 * 86_400_000, cap, 100);
    expect(r.usedBytes()).to.be.greaterThan(cap);
    let rounds = 0;
    while (r.trimBySize().logs > 0) rounds++;
    expect(rounds).to.be.greaterThan(0);
    expect(r.usedBytes()).to.be.at.most(cap);
    // Oldest went first: the newest record is still there, the very first is not.
    const kept = store.db.prepare("SELECT min(ts_ns), max(ts_ns) FROM logs").raw().get() as bigint[];
    expect(kept[1]).to.equal(NOW + 999n);
    expect(kept[0]! > NOW).to.equal(true);
    expect(store.counters().logs).to.equal(
      BigInt(store.db.prepare("SELECT count(*) FROM logs").pluck().get() as bigint),
    );
  });

  it("hands free pages back past the cap at most a chunk a call, saying whether more are left", () => {
    writeLogRounds();
    const empty = retention(365 * 86_400_000, 1, 100);
    store.db.exec("DELETE FROM logs");
    const freePages = () => Number(store.db.pragma("freelist_count", { simple: true }));
    const free = freePages();
    expect(free).to.be.greaterThan(20);
    const fileBytes = empty.fileBytes();
    // Under no cap the file keeps its free pages, for the next rows.
    expect(retention(365 * 86_400_000, fileBytes).releaseFreePages(8)).to.equal(false);
    expect(freePages()).to.equal(free);
    let calls = 0;
    for (;;) {
      const before = freePages();
      const more = empty.releaseFreePages(8);
      calls++;
      expect(before - freePages()).to.be.at.most(8);
      if (!more) break;
    }
    expect(calls).to.be.at.least(free / 8);
    expect(freePages()).to.equal(0);
    expect(empty.fileBytes()).to.equal(fileBytes - free * Number(store.db.pragma("page_size", { simple: true })));
  });

  it("stops handing free pages back when a chunk frees none (a file rebuilt without incremental auto_vacuum)", () => {
    writeLogRounds();
    store.db.exec("PRAGMA auto_vacuum = NONE; VACUUM; DELETE FROM logs");
    const free = Number(store.db.pragma("freelist_count", { simple: true }));
    expect(free).to.be.greaterThan(20);
    expect(retention(365 * 86_400_000, 1, 100).releaseFreePages(8)).to.equal(false);
    expect(Number(store.db.pragma("freelist_count", { simple: true }))).to.equal(free);
  });
});

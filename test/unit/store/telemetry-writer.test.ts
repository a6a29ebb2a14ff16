import { createRequire } from "node:module";
import { Worker } from "node:worker_threads";
import { expect } from "chai";
import { decodeTraceRequest } from "../../../daemon/otlp/decode-request.js";
import { SqliteReader } from "../../../daemon/query/sqlite-reader.js";
import { registerPostingFunctions } from "../../../daemon/store/posting-rows.js";
import { idHex, optionalIdHex } from "../../../daemon/store/stored-ids.js";
import { nsToIso } from "../../../shared/time.js";
import { metricBatch, metricPoint } from "../../helpers/metric-points.js";
import { hexId, logsRequest, traceRequest } from "../../helpers/otlp-builders.js";
import { testStore } from "../../helpers/store.js";

const T0 = 1_700_000_000_000_000_000n;
const MS = 1_000_000n;

describe("telemetry writer", () => {
  let store: ReturnType<typeof testStore>;
  beforeEach(() => {
    store = testStore();
  });
  afterEach(() => store.close());

  /** A trace's summary row, its ids read as hex. */
  const summaryOf = (traceId: string) =>
    store.db
      .prepare(
        `SELECT *, ${idHex("trace_id")} AS trace_id, ${optionalIdHex("root_span_id")} AS root_span_id,
           (SELECT name FROM span_names WHERE id = root_name_id) AS root_name
         FROM traces WHERE trace_id = unhex(?)`,
      )
      .get(traceId) as Record<string, unknown>;

  it("waits for another connection's write lock, even when its transaction reads before it writes", async () => {
    // Another thread holds the write lock for 300 ms, as a backup or an inspecting tool might.
    const holder = new Worker(
      `const { parentPort, workerData } = require("node:worker_threads");
       const Database = require(workerData.module);
       const db = new Database(workerData.path);
       db.prepare("BEGIN IMMEDIATE").run();
       parentPort.postMessage("locked");
       Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 300);
       db.prepare("ROLLBACK").run();
       db.close();`,
      {
        eval: true,
        workerData: { path: store.path, module: createRequire(import.meta.url).resolve("better-sqlite3") },
      },
    );
    const ended = new Promise((resolve) => holder.once("exit", resolve));
    await new Promise((resolve) => holder.once("message", resolve));
    const request = traceRequest("api", [{ traceId: hexId(1, 16), spanId: hexId(1, 8), startNs: T0 }]);
    const batch = decodeTraceRequest(Buffer.from(JSON.stringify(request)), "json");
    // A read first: a deferred transaction would then be refused the lock at once, without the
    // busy timeout's wait (SQLite waits only for a connection that holds no read transaction).
    const written = store.writer.transaction(() => {
      store.db.prepare("SELECT count(*) FROM spans").get();
      return store.writer.writeSpans(batch, 0n);
    });
    expect(written).to.equal(1);
    await ended;
  });

  it("stores a span once however often it is sent", () => {
    const request = traceRequest("api", [{ traceId: hexId(1, 16), spanId: hexId(1, 8), startNs: T0 }]);
    expect(store.writeTraces(request)).to.equal(1);
    expect(store.writeTraces(request)).to.equal(0);
    expect(store.db.prepare("SELECT count(*) FROM spans").pluck().get()).to.equal(1n);
    expect(store.counters()).to.include({ spans: 1n, traces: 1n, services: 1n });
  });

  it("stores each span of a stored trace once: a resent one is found by its whole id, however many share its first bytes", () => {
    const trace = hexId(1, 16);
    // Span ids sharing the two bytes the index by trace keeps, and one id in two traces.
    const ids = ["000000000000abcd", "010000000000abcd", "ff0000000000abcd", "0000000000000001"];
    const span = (spanId: string, name = "op", traceId = trace) => ({ traceId, spanId, startNs: T0, name });
    expect(store.writeTraces(traceRequest("api", [span(ids[0] as string)]))).to.equal(1);
    // Later requests for the stored trace: each new span once (one sent twice in a request), the
    // stored one skipped, whatever name it is sent with now (which then takes no name id).
    expect(
      store.writeTraces(
        traceRequest("api", [
          span(ids[0] as string, "renamed"),
          span(ids[1] as string),
          span(ids[1] as string),
          span(ids[2] as string),
        ]),
      ),
    ).to.equal(2);
    expect(store.writeTraces(traceRequest("api", [span(ids[2] as string), span(ids[3] as string)]))).to.equal(1);
    expect(store.writeTraces(traceRequest("api", [span(ids[0] as string, "op", hexId(2, 16))]))).to.equal(1);
    const stored = store.db
      .prepare(
        `SELECT ${idHex("t.trace_id")}, ${idHex("s.span_id")} FROM spans s JOIN traces t USING (trace_key) ORDER BY s.id`,
      )
      .raw()
      .all();
    expect(stored).to.deep.equal([...ids.map((id) => [trace, id]), [hexId(2, 16), ids[0]]]);
    expect(store.db.prepare("SELECT name FROM span_names").pluck().all()).to.deep.equal(["op"]);
    expect(summaryOf(trace)).to.include({ span_count: 4n });
    expect(store.counters()).to.include({ spans: 5n, traces: 2n });
  });

  it("stores a log record once however often it is sent", () => {
    const request = logsRequest("api", [
      { timeNs: T0, body: "hello" },
      { timeNs: T0, body: "world" },
    ]);
    expect(store.writeLogs(request)).to.equal(2);
    expect(store.writeLogs(request)).to.equal(0);
    expect(store.counters()).to.include({ logs: 2n });
  });

  it("stores a log record once whichever of its times it has, and the same content at another time again", () => {
    const records = [
      { timeNs: T0, observedNs: T0 + 5n * MS, body: "both times" },
      { timeNs: T0, body: "its own time" },
      { timeNs: 0n, observedNs: T0 + 7n, body: "observed only" },
      { timeNs: 0n, body: "no time" },
    ];
    expect(store.writeLogs(logsRequest("api", records), T0 + 100n * MS)).to.equal(4);
    // A resend comes at another moment: the record with no time is ordered by that moment, and
    // is still the same record.
    expect(store.writeLogs(logsRequest("api", records), T0 + 900n * MS)).to.equal(0);
    for (const [i, record] of records.entries()) {
      expect(store.writeLogs(logsRequest("api", [record]), T0 + BigInt(i) * MS), record.body).to.equal(0);
    }
    // The same content at another time, observed at another time, or in two records of one
    // nanosecond, is another record.
    const others = [
      { timeNs: T0 + 1n, observedNs: T0 + 5n * MS, body: "both times" },
      { timeNs: 0n, observedNs: T0 + 8n, body: "observed only" },
      { timeNs: T0, body: "its own time, again" },
    ];
    expect(store.writeLogs(logsRequest("api", others), T0 + 100n * MS)).to.equal(3);
    expect(store.counters()).to.include({ logs: 7n });
  });

  it("gives a log record back with the time and observed time it was sent with, each or neither", () => {
    const received = T0 + 60_000n * MS;
    const records = [
      { timeNs: T0 + 1n, observedNs: T0 + 5n * MS + 3n, body: "observed after" },
      { timeNs: T0 + 2n, observedNs: T0 - 1n, body: "observed before" },
      { timeNs: T0 + 3n, observedNs: T0 + 3n, body: "observed at its time" },
      { timeNs: T0 + 4n, body: "its own time" },
      { timeNs: 0n, observedNs: T0 + 5n, body: "observed only" },
      { timeNs: 0n, body: "no time" },
    ];
    store.writeLogs(logsRequest("api", records), received);
    const page = { fromNs: T0 - MS, toNs: received, limit: 10 };
    const { items } = new SqliteReader(store.db).logs({ attrs: [], attrContains: [], page });
    const iso = nsToIso;
    const times = Object.fromEntries(
      items.map((log) => [String(log.body), [log.timestamp, log.time, log.observedTime]] as const),
    );
    expect(times).to.deep.equal({
      "observed after": [iso(T0 + 1n), iso(T0 + 1n), iso(T0 + 5n * MS + 3n)],
      "observed before": [iso(T0 + 2n), iso(T0 + 2n), iso(T0 - 1n)],
      "observed at its time": [iso(T0 + 3n), iso(T0 + 3n), iso(T0 + 3n)],
      "its own time": [iso(T0 + 4n), iso(T0 + 4n), null],
      "observed only": [iso(T0 + 5n), null, iso(T0 + 5n)],
      "no time": [iso(received), null, null],
    });
    // Newest first; the record with no time where it was received.
    expect(items.map((log) => log.body)).to.deep.equal([
      "no time",
      "observed only",
      "its own time",
      "observed at its time",
      "observed before",
      "observed after",
    ]);
  });

  it("gives a log record back with the severity text it was sent with, or none, and groups and filters by it", () => {
    const sent: [number, string | undefined][] = [
      [9, "INFO"],
      [14, "WARN2"],
      [24, "FATAL4"],
      [9, undefined],
      [13, "WARNING"],
      [13, "INFO"],
      [9, "info"],
      [0, "custom"],
      [0, undefined],
    ];
    store.writeLogs(
      logsRequest(
        "api",
        sent.map(([severityNumber, severityText], i) => ({
          timeNs: T0 + BigInt(i),
          body: `record ${i}`,
          severityNumber,
          ...(severityText === undefined ? {} : { severityText }),
        })),
      ),
    );
    const reader = new SqliteReader(store.db);
    const page = { fromNs: T0, toNs: T0 + MS, limit: 20 };
    const { items } = reader.logs({ attrs: [], attrContains: [], page });
    expect(items.map((log) => [log.severityNumber, log.severityText]).reverse()).to.deep.equal(
      sent.map(([number, text]) => [number, text ?? null]),
    );
    // Grouped by its text, else its number's name; filtered on either.
    const groups = reader.logStats({ attrs: [], attrContains: [], fromNs: T0, toNs: T0 + MS }, "severity");
    expect(Object.fromEntries(groups.map((group) => [String(group.group), group.count]))).to.deep.equal({
      INFO: 2,
      WARN2: 1,
      FATAL4: 1,
      info: 2,
      WARNING: 1,
      custom: 1,
      null: 1,
    });
    const warn = reader.logs({ attrs: [], attrContains: [], severity: "warn", page });
    expect(warn.items.map((log) => log.body).reverse()).to.deep.equal(["record 1", "record 4", "record 5"]);
  });

  it("keeps nanosecond timestamps exact", () => {
    store.writeTraces(
      traceRequest("api", [
        { traceId: hexId(1, 16), spanId: hexId(1, 8), startNs: 1700000000123456789n, durationNs: 1n },
      ]),
    );
    const row = store.db.prepare("SELECT start_ns, start_ns + duration_ns AS end_ns FROM spans").get() as Record<
      string,
      bigint
    >;
    expect(row).to.deep.equal({ start_ns: 1700000000123456789n, end_ns: 1700000000123456790n });
  });

  it("builds the trace summary when children arrive before their root", () => {
    const traceId = hexId(7, 16);
    const root = hexId(1, 8);
    store.writeTraces(
      traceRequest("db", [
        { traceId, spanId: hexId(2, 8), parentSpanId: root, name: "query", startNs: T0 + 5n * MS, error: true },
      ]),
    );
    let summary = summaryOf(traceId);
    expect(summary).to.include({ span_count: 1n, error_count: 1n, root_span_id: null, root_name: null });
    store.writeTraces(
      traceRequest("api", [{ traceId, spanId: root, name: "GET /users", startNs: T0, durationNs: 20n * MS }]),
    );
    summary = summaryOf(traceId);
    expect(summary).to.include({
      span_count: 2n,
      error_count: 1n,
      root_span_id: root,
      root_name: "GET /users",
      start_ns: T0,
      end_ns: T0 + 20n * MS,
    });
    const services = store.db
      .prepare(
        `SELECT s.name FROM trace_services ts JOIN services s ON s.id = ts.service_id
         JOIN traces t ON t.trace_key = ts.trace_key WHERE t.trace_id = unhex(?) ORDER BY 1`,
      )
      .pluck()
      .all(traceId);
    expect(services).to.deep.equal(["api", "db"]);
    expect(store.counters()).to.include({ traces: 1n, spans: 2n, services: 2n });
  });

  it("summarizes a new trace once when a request repeats one of its spans, and keeps earlier traces' keys", () => {
    const first = hexId(1, 16);
    store.writeTraces(traceRequest("api", [{ traceId: first, spanId: hexId(1, 8), startNs: T0 }]));
    const traceId = hexId(8, 16);
    const root = { traceId, spanId: hexId(1, 8), name: "GET /", startNs: T0, durationNs: 9n * MS };
    const child = { traceId, spanId: hexId(2, 8), parentSpanId: root.spanId, startNs: T0 + MS, error: true };
    // The child twice (the second copy later and longer: the first copy is the one stored).
    expect(store.writeTraces(traceRequest("api", [child, root, { ...child, startNs: T0 + 2n * MS }]))).to.equal(2);
    const summary = summaryOf;
    expect(summary(traceId)).to.include({
      trace_key: 2n,
      span_count: 2n,
      error_count: 1n,
      start_ns: T0,
      end_ns: T0 + 9n * MS,
      root_span_id: root.spanId,
      root_name: "GET /",
    });
    expect(summary(first)).to.include({ trace_key: 1n, span_count: 1n });
    const keys = store.db
      .prepare(
        "SELECT DISTINCT s.trace_key FROM spans s JOIN traces t ON t.trace_key = s.trace_key WHERE t.trace_id = unhex(?)",
      )
      .pluck()
      .all(traceId);
    expect(keys).to.deep.equal([2n]);
    expect(store.counters()).to.include({ traces: 2n, spans: 3n });
  });

  it("indexes every attribute in one posting entry per (key, value) per transaction", () => {
    store.writeTraces(
      traceRequest("api", [
        {
          traceId: hexId(1, 16),
          spanId: hexId(1, 8),
          startNs: T0,
          attributes: { "http.method": "GET", "http.status_code": 200 },
        },
        { traceId: hexId(1, 16), spanId: hexId(2, 8), startNs: T0, attributes: { "http.method": "GET" } },
      ]),
    );
    store.writeTraces(
      traceRequest("api", [
        { traceId: hexId(2, 16), spanId: hexId(3, 8), startNs: T0, attributes: { "http.method": "GET" } },
      ]),
    );
    const ids = store.db
      .prepare(`SELECT ${idHex("span_id")}, id FROM spans`)
      .raw()
      .all() as [string, bigint][];
    const row = Object.fromEntries(ids.map(([spanId, id]) => [spanId, Number(id)]));
    const entries = store.db
      .prepare(
        "SELECT k.key, p.value, p.first_row, p.last_row, p.rows FROM span_postings p JOIN attr_keys k ON k.id = p.key_id ORDER BY k.key, p.first_row",
      )
      .raw()
      .all();
    const [a, b, c] = [row[hexId(1, 8)], row[hexId(2, 8)], row[hexId(3, 8)]];
    // Row ids after the first as varint differences (posting-rows.ts): empty for one row.
    expect(entries).to.deep.equal([
      ["http.method", "GET", BigInt(a!), BigInt(b!), Buffer.from([b! - a!])],
      ["http.method", "GET", BigInt(c!), BigInt(c!), Buffer.alloc(0)],
      ["http.status_code", "200", BigInt(a!), BigInt(a!), Buffer.alloc(0)],
    ]);
  });

  it("writes nothing to the index for a resent span", () => {
    const request = traceRequest("api", [
      { traceId: hexId(1, 16), spanId: hexId(1, 8), startNs: T0, attributes: { k: "v" } },
    ]);
    store.writeTraces(request);
    store.writeTraces(request);
    expect(store.db.prepare("SELECT count(*) FROM span_postings").pluck().get()).to.equal(1n);
  });

  it("indexes the new spans of a partly resent batch under their own rows", () => {
    const span = (n: number) => ({
      traceId: hexId(n, 16),
      spanId: hexId(n, 8),
      startNs: T0,
      attributes: { n: `v${n}` },
    });
    store.writeTraces(traceRequest("api", [span(2), span(4)]));
    expect(store.writeTraces(traceRequest("api", [span(1), span(2), span(3), span(4), span(5)]))).to.equal(3);
    registerPostingFunctions(store.db);
    const indexed = store.db
      .prepare(
        `SELECT p.value, ${idHex("s.span_id")} FROM span_postings p JOIN json_each(obs_posting_rows(p.rows, p.first_row)) r
         JOIN spans s ON s.id = r.value ORDER BY p.value`,
      )
      .raw()
      .all();
    expect(indexed).to.deep.equal([1, 2, 3, 4, 5].map((n) => [`v${n}`, hexId(n, 8)]));
  });

  it("tracks the latest telemetry time and per-service last sighting", () => {
    store.writeTraces(
      traceRequest("api", [{ traceId: hexId(1, 16), spanId: hexId(1, 8), startNs: T0, durationNs: 10n }]),
    );
    store.writeLogs(logsRequest("worker", [{ timeNs: T0 + 100n, body: "x" }]));
    expect(store.counters().latest_ns).to.equal(T0 + 100n);
    const seen = store.db.prepare("SELECT name, last_seen_ns FROM services ORDER BY name").raw().all();
    expect(seen).to.deep.equal([
      ["api", T0],
      ["worker", T0 + 100n],
    ]);
  });

  it("takes the latest telemetry time from span starts, log and point times, one past its arrival counting as its arrival", () => {
    const arrived = T0 + 60_000n * MS;
    const LAST_NS = 2n ** 63n - 1n;
    // A span that ends in 2262: its start is its time, as /api/services reads it.
    store.writeTraces(
      traceRequest("api", [{ traceId: hexId(1, 16), spanId: hexId(1, 8), startNs: T0, durationNs: LAST_NS - T0 }]),
      arrived,
    );
    expect(store.counters().latest_ns).to.equal(T0);
    // Dated later than they arrived (a sender's clock ahead): counted as arriving then, not for good.
    store.writeTraces(
      traceRequest("api", [{ traceId: hexId(2, 16), spanId: hexId(2, 8), startNs: LAST_NS - 10n, durationNs: 1n }]),
      arrived,
    );
    expect(store.counters().latest_ns).to.equal(arrived);
    const later = arrived + 60_000n * MS;
    store.writeLogs(logsRequest("worker", [{ timeNs: LAST_NS - 1n, body: "x" }]), later);
    expect(store.counters().latest_ns).to.equal(later);
    const last = later + 60_000n * MS;
    store.writer.transaction(() =>
      store.writer.writeMetrics(metricBatch("meter", [metricPoint({ timeNs: LAST_NS - 5n, value: 1 })]), last),
    );
    expect(store.counters().latest_ns).to.equal(last);
  });

  it("leaves nothing behind when a transaction fails", () => {
    const { writer } = store;
    expect(() =>
      writer.transaction(() => {
        store.writer.writeSpans(
          {
            resources: [{ hash: "r", serviceName: "x", attributes: "{}", droppedAttributesCount: 0, schemaUrl: null }],
            scopes: [
              { hash: "s", name: "", version: null, attributes: "{}", droppedAttributesCount: 0, schemaUrl: null },
            ],
            spans: [],
          },
          0n,
        );
        throw new Error("disk on fire");
      }),
    ).to.throw("disk on fire");
    expect(store.counters()).to.include({ services: 0n });
    // The memo must not hand out ids of rolled-back rows.
    expect(
      store.writeTraces(traceRequest("x", [{ traceId: hexId(1, 16), spanId: hexId(1, 8), startNs: T0 }])),
    ).to.equal(1);
    expect(store.db.prepare("SELECT count(*) FROM services").pluck().get()).to.equal(1n);
  });
  it("never codes attributes with a key id a failed transaction created", () => {
    const spans = (key: string, spanId: number) =>
      decodeTraceRequest(
        Buffer.from(
          JSON.stringify(
            traceRequest("api", [
              { traceId: hexId(1, 16), spanId: hexId(spanId, 8), startNs: T0, attributes: { [key]: "v", b: 1 } },
            ]),
          ),
        ),
        "json",
      );
    const { writer } = store;
    expect(() =>
      writer.transaction(() => {
        writer.writeSpans(spans("lost.key", 1), 0n);
        throw new Error("disk on fire");
      }),
    ).to.throw("disk on fire");
    // A log record's key takes the id the rolled-back one had; a span with that key again gets a stored id.
    store.writeLogs(logsRequest("api", [{ timeNs: T0, body: "x", attributes: { "other.key": "v" } }]));
    writer.transaction(() => writer.writeSpans(spans("lost.key", 3), 0n));
    const reader = new SqliteReader(store.db);
    const page = { fromNs: T0, toNs: T0 + 1n, limit: 10 };
    const stored = reader.spans({ attrs: [], attrContains: [], page }).items.map((span) => span.attributes);
    expect(stored).to.deep.equal([{ "lost.key": "v", b: 1 }]);
    const logs = reader.logs({ attrs: [], attrContains: [], page }).items.map((log) => log.attributes);
    expect(logs).to.deep.equal([{ "other.key": "v" }]);
  });

  it("never names a span or trace by a name id a failed transaction created", () => {
    const span = (name: string, n: number) =>
      decodeTraceRequest(
        Buffer.from(
          JSON.stringify(
            traceRequest("api", [{ traceId: hexId(n, 16), spanId: hexId(n, 8), name, startNs: T0 + BigInt(n) }]),
          ),
        ),
        "json",
      );
    const { writer } = store;
    expect(() =>
      writer.transaction(() => {
        writer.writeSpans(span("lost name", 1), 0n);
        throw new Error("disk on fire");
      }),
    ).to.throw("disk on fire");
    // Another name takes the id the rolled-back one had; the first name again gets a stored id.
    writer.transaction(() => writer.writeSpans(span("other name", 2), 0n));
    writer.transaction(() => writer.writeSpans(span("lost name", 3), 0n));
    const reader = new SqliteReader(store.db);
    const page = { fromNs: T0, toNs: T0 + 10n, limit: 10 };
    expect(reader.spans({ attrs: [], attrContains: [], page }).items.map((s) => s.operation)).to.deep.equal([
      "lost name",
      "other name",
    ]);
    expect(reader.traces({ attrs: [], page }).items.map((t) => t.rootOperation)).to.deep.equal([
      "lost name",
      "other name",
    ]);
  });

  it("keeps each span name once, and finds spans and traces by it, a name never stored finding none", () => {
    const traces = ["GET /a", "GET /b", "GET /a"].map((name, t) =>
      traceRequest("api", [
        { traceId: hexId(t, 16), spanId: hexId(t * 10, 8), name, startNs: T0 + BigInt(t) },
        {
          traceId: hexId(t, 16),
          spanId: hexId(t * 10 + 1, 8),
          parentSpanId: hexId(t * 10, 8),
          name: "query",
          startNs: T0 + BigInt(t),
        },
      ]),
    );
    for (const request of traces) store.writeTraces(request);
    expect(store.db.prepare("SELECT name FROM span_names ORDER BY name").pluck().all()).to.deep.equal([
      "GET /a",
      "GET /b",
      "query",
    ]);
    const reader = new SqliteReader(store.db);
    const page = { fromNs: T0, toNs: T0 + 10n, limit: 10 };
    const spans = (query: { operation?: string; parentOperation?: string }) =>
      reader.spans({ attrs: [], attrContains: [], page, ...query }).items.map((s) => s.spanId);
    expect(spans({ operation: "GET /a" })).to.deep.equal([hexId(20, 8), hexId(0, 8)]);
    expect(spans({ parentOperation: "GET /b" })).to.deep.equal([hexId(11, 8)]);
    expect(spans({ operation: "GET /c" })).to.deep.equal([]);
    const traceIds = (operation: string) => reader.traces({ attrs: [], operation, page }).items.map((t) => t.traceId);
    expect(traceIds("GET /a")).to.deep.equal([hexId(2, 16), hexId(0, 16)]);
    expect(traceIds("query")).to.deep.equal([]);
    const byOperation = reader.traceStats({ attrs: [], fromNs: T0, toNs: T0 + 10n }, "operation", "count");
    expect(byOperation.map((row) => [row.group, row.count])).to.deep.equal([
      ["GET /a", 2],
      ["GET /b", 1],
    ]);
    const facet = reader.facets({ type: "traces", field: "operation" }, { fromNs: T0, toNs: T0 + 10n }, 10);
    expect(facet.map((value) => [value.value, value.count])).to.deep.equal([
      ["GET /a", 2],
      ["GET /b", 1],
    ]);
  });

  it("gives a span back with the end it was sent with, an end before its start too, and a duration of at least 0", () => {
    const sent = [
      { spanId: hexId(1, 8), startNs: T0, durationNs: 1_234_567n },
      { spanId: hexId(2, 8), startNs: T0 + 1n, durationNs: -5n },
      { spanId: hexId(3, 8), startNs: T0 + 2n, durationNs: 0n },
    ];
    store.writeTraces(
      traceRequest(
        "api",
        sent.map((span) => ({ traceId: hexId(1, 16), ...span })),
      ),
    );
    const page = { fromNs: T0, toNs: T0 + 10n, limit: 10 };
    const spans = new SqliteReader(store.db).spans({ attrs: [], attrContains: [], page }).items.reverse();
    expect(spans.map((s) => [s.startTimeUnixNano, s.endTimeUnixNano, s.durationNs])).to.deep.equal(
      sent.map((s) => [s.startNs.toString(), (s.startNs + s.durationNs).toString(), s.durationNs > 0n ? 1_234_567 : 0]),
    );
    // The trace ends at its latest end.
    expect(summaryOf(hexId(1, 16))).to.include({ end_ns: T0 + 1_234_567n });
  });

  it("gives a span and a log back with their own, their resource's and their scope's dropped counts and schema URLs", () => {
    const resource = {
      attributes: [{ key: "service.name", value: { stringValue: "api" } }],
      droppedAttributesCount: 2,
    };
    const scope = { name: "lib", version: "1.0", droppedAttributesCount: 3 };
    const traceId = hexId(7, 16);
    store.writeTraces({
      resourceSpans: [
        {
          resource,
          schemaUrl: "https://opentelemetry.io/schemas/1.21.0",
          scopeSpans: [
            {
              scope,
              schemaUrl: "https://example.com/scope-schema",
              spans: [
                {
                  traceId,
                  spanId: hexId(7, 8),
                  name: "op",
                  kind: 2,
                  startTimeUnixNano: String(T0),
                  endTimeUnixNano: String(T0 + MS),
                  droppedAttributesCount: 5,
                },
              ],
            },
          ],
        },
      ],
    });
    store.writeLogs({
      resourceLogs: [
        {
          resource,
          schemaUrl: "https://opentelemetry.io/schemas/1.21.0",
          scopeLogs: [
            {
              scope,
              schemaUrl: "https://example.com/scope-schema",
              logRecords: [{ timeUnixNano: String(T0), body: { stringValue: "trimmed" }, droppedAttributesCount: 4 }],
            },
          ],
        },
      ],
    });
    const reader = new SqliteReader(store.db);
    const page = { fromNs: T0 - MS, toNs: T0 + MS, limit: 10 };
    const [log] = reader.logs({ attrs: [], attrContains: [], page }).items;
    const [span] = reader.span(hexId(7, 8));
    for (const record of [log, span]) {
      expect(record?.resource).to.deep.equal({
        attributes: { "service.name": "api" },
        schemaUrl: "https://opentelemetry.io/schemas/1.21.0",
        droppedAttributesCount: 2,
      });
      expect(record?.scope).to.deep.equal({
        name: "lib",
        version: "1.0",
        attributes: {},
        schemaUrl: "https://example.com/scope-schema",
        droppedAttributesCount: 3,
      });
    }
    expect(log?.droppedAttributesCount).to.equal(4);
    expect(span?.droppedAttributesCount).to.equal(5);
  });
});

import type Database from "better-sqlite3";
import { expect } from "chai";
import { SqliteReader } from "../../../daemon/query/sqlite-reader.js";
import type { PageRequest } from "../../../daemon/query/telemetry-reader.js";
import { openReadConnection } from "../../../daemon/store/connection.js";
import { valueHash } from "../../../daemon/store/hashed-postings.js";
import { PostingPacker } from "../../../daemon/store/posting-packer.js";
import { POSTING_BUCKET_ROWS } from "../../../daemon/store/postings.js";
import { LOG_TRACE_BUCKET_SHIFT, SPAN_ID_BUCKET_SHIFT } from "../../../daemon/store/schema.js";
import { nsToIso } from "../../../shared/time.js";
import { hexId, logsRequest, type SpanSpec, traceRequest } from "../../helpers/otlp-builders.js";
import { testStore } from "../../helpers/store.js";

const MS = 1_000_000n;
const T0 = 1_700_000_000_000_000_000n;
const WINDOW = { fromNs: T0 - 3_600_000n * MS, toNs: T0 + 3_600_000n * MS };

/** SQLite's plan for `sql`, its steps joined. */
function queryPlan(db: Database.Database, sql: string, ...params: unknown[]): string {
  return db
    .prepare(`EXPLAIN QUERY PLAN ${sql}`)
    .all(...params)
    .map((row) => (row as { detail: string }).detail)
    .join(" ");
}

/**
 * SQLite's plan for the statement a fresh reader on `db` prepares in `read` whose SQL contains
 * `marker`, every parameter bound to `value` (a plan depends on the SQL, not on the values).
 */
function readerPlan(db: Database.Database, read: (reader: SqliteReader) => void, marker: string, value: unknown) {
  const prepared: string[] = [];
  const prepare = db.prepare;
  db.prepare = ((sql: string) => {
    prepared.push(sql);
    return prepare.call(db, sql);
  }) as typeof db.prepare;
  try {
    read(new SqliteReader(db));
  } finally {
    db.prepare = prepare;
  }
  const sql = prepared.find((text) => text.includes(marker));
  if (sql === undefined) throw new Error(`the reader prepared no statement with ${marker}`);
  const named = sql.includes("@");
  const params = named ? [{ span: value }] : Array.from(sql.matchAll(/\?/g), () => value);
  return queryPlan(db, sql, ...params);
}

describe("SQLite reader", () => {
  let store: ReturnType<typeof testStore>;
  let reader: SqliteReader;
  let readDb: ReturnType<typeof openReadConnection>;

  // 30 traces, newest last: trace i starts at T0 + i ms, lasts (i+1) ms; every third has an error;
  // services alternate api/worker; each root has route /r{i%3}; each child has db.system=sqlite.
  beforeEach(() => {
    store = testStore();
    for (let i = 0; i < 30; i++) {
      const traceId = hexId(i, 16);
      const spans: SpanSpec[] = [
        {
          traceId,
          spanId: hexId(i * 2, 8),
          name: `GET /r${i % 3}`,
          startNs: T0 + BigInt(i) * MS,
          durationNs: BigInt(i + 1) * MS,
          attributes: { "http.route": `/r${i % 3}` },
        },
        {
          traceId,
          spanId: hexId(i * 2 + 1, 8),
          parentSpanId: hexId(i * 2, 8),
          name: "query",
          startNs: T0 + BigInt(i) * MS,
          error: i % 3 === 0,
          attributes: { "db.system": "sqlite", "db.statement": `SELECT ${i}` },
        },
      ];
      store.writeTraces(traceRequest(i % 2 === 0 ? "api" : "worker", spans));
    }
    store.writeLogs(
      logsRequest("api", [
        {
          timeNs: T0 + 1n,
          body: "disk almost full",
          severityNumber: 13,
          traceId: hexId(1, 16),
          attributes: { path: "/var" },
        },
        { timeNs: T0 + 2n, body: "request done", severityNumber: 9 },
        { timeNs: T0 + 3n, body: "boom", severityNumber: 17, traceId: hexId(1, 16), spanId: hexId(2, 8) },
      ]),
    );
    readDb = openReadConnection(store.path);
    reader = new SqliteReader(readDb);
  });
  afterEach(() => {
    readDb.close();
    store.close();
  });

  const page = (limit = 100, after?: PageRequest["after"]): PageRequest => ({
    ...WINDOW,
    limit,
    ...(after ? { after } : {}),
  });

  it("lists traces newest first with their summaries", () => {
    const result = reader.traces({ attrs: [], page: page(3) });
    expect(result.items.map((t) => t.traceId)).to.deep.equal([hexId(29, 16), hexId(28, 16), hexId(27, 16)]);
    expect(result.more).to.equal(true);
    const first = result.items[0]!;
    expect(first).to.include({
      rootOperation: "GET /r2",
      rootServiceName: "worker",
      spanCount: 2,
      errorCount: 0,
      status: "ok",
      durationMs: 30,
    });
    expect(first.services).to.deep.equal(["worker"]);
  });

  it("pages through every trace once, in order", () => {
    const seen: string[] = [];
    let after: PageRequest["after"];
    for (;;) {
      const result = reader.traces({ attrs: [], page: page(7, after) });
      seen.push(...result.items.map((t) => t.traceId));
      if (!result.more) break;
      after = result.last ?? undefined;
    }
    expect(seen).to.deep.equal(Array.from({ length: 30 }, (_, i) => hexId(29 - i, 16)));
  });

  it("filters traces by service, status, root operation, duration and attribute", () => {
    const ids = (q: Partial<Parameters<SqliteReader["traces"]>[0]>) =>
      reader
        .traces({ attrs: [], page: page(), ...q })
        .items.map((t) => t.traceId)
        .sort();
    const expected = (keep: (i: number) => boolean) =>
      Array.from({ length: 30 }, (_, i) => i)
        .filter(keep)
        .map((i) => hexId(i, 16))
        .sort();
    expect(ids({ service: "api" })).to.deep.equal(expected((i) => i % 2 === 0));
    expect(ids({ status: "error" })).to.deep.equal(expected((i) => i % 3 === 0));
    expect(ids({ status: "ok" })).to.deep.equal(expected((i) => i % 3 !== 0));
    expect(ids({ operation: "GET /r1" })).to.deep.equal(expected((i) => i % 3 === 1));
    expect(ids({ durationMinMs: 25 })).to.deep.equal(expected((i) => i + 1 >= 25));
    expect(ids({ attrs: [["http.route", "/r2"]] })).to.deep.equal(expected((i) => i % 3 === 2));
    expect(ids({ attrs: [["db.statement", "SELECT 7"]] })).to.deep.equal(expected((i) => i === 7));
    expect(ids({ service: "api", status: "error" })).to.deep.equal(expected((i) => i % 6 === 0));
    expect(ids({ service: "nobody" })).to.deep.equal([]);
    expect(ids({ attrs: [["no.such.key", "x"]] })).to.deep.equal([]);
  });

  it("returns a trace's spans and summary, or null for an unknown id", () => {
    const detail = reader.trace(hexId(4, 16))!;
    expect(detail.summary).to.include({ traceId: hexId(4, 16), spanCount: 2 });
    expect(detail.spans.map((s) => s.spanId)).to.have.members([hexId(8, 8), hexId(9, 8)]);
    const child = detail.spans.find((s) => s.parentSpanId !== null)!;
    expect(child).to.include({ operation: "query", serviceName: "api", kind: "server" });
    expect(child.attributes).to.deep.equal({ "db.system": "sqlite", "db.statement": "SELECT 4" });
    expect(child.startTimeUnixNano).to.equal((T0 + 4n * MS).toString());
    expect(reader.trace(hexId(999, 16))).to.equal(null);
  });

  it("pages a trace's spans in start order, span id breaking ties, and finds which ids are stored", () => {
    const first = reader.trace(hexId(4, 16), { limit: 1 })!;
    expect(first.spans.map((s) => s.spanId)).to.deep.equal([hexId(8, 8)]);
    expect(first.more).to.equal(true);
    const rest = reader.trace(hexId(4, 16), { limit: 1, after: first.last! })!;
    expect(rest.spans.map((s) => s.spanId)).to.deep.equal([hexId(9, 8)]);
    expect(rest.more).to.equal(false);
    expect(reader.trace(hexId(4, 16), { limit: 0 })!.summary.spanCount).to.equal(2);
    expect([...reader.storedSpanIds(hexId(4, 16), [hexId(9, 8), hexId(10, 8)])]).to.deep.equal([hexId(9, 8)]);
  });

  it("searches spans by parent operation, status, attribute substring, and finds one by id", () => {
    const byParent = reader.spans({ parentOperation: "GET /r0", attrs: [], attrContains: [], page: page() });
    expect(byParent.items.map((s) => s.operation)).to.deep.equal(Array(10).fill("query"));
    const errors = reader.spans({ status: "error", attrs: [], attrContains: [], page: page() });
    expect(errors.items).to.have.length(10);
    const contains = reader.spans({ attrs: [], attrContains: [["db.statement", "ECT 1"]], page: page() });
    expect(contains.items.map((s) => s.attributes["db.statement"]).sort()).to.deep.equal(
      ["SELECT 1", ...Array.from({ length: 10 }, (_, i) => `SELECT 1${i}`)].sort(),
    );
    expect(reader.span(hexId(9, 8)).map((s) => s.traceId)).to.deep.equal([hexId(4, 16)]);
  });

  it("finds a span id in every row-id bucket of the span-id index, however far apart", () => {
    const shared = hexId(7777, 8);
    const write = (trace: number, startNs: bigint) =>
      store.writeTraces(traceRequest("api", [{ traceId: hexId(trace, 16), spanId: shared, name: "op", startNs }]));
    write(100, T0);
    // Row ids jump three buckets ahead, as after a long stretch of ingestion and retention.
    store.db.prepare("UPDATE sqlite_sequence SET seq = seq + ? WHERE name = 'spans'").run(3 << SPAN_ID_BUCKET_SHIFT);
    write(101, T0 + MS);
    store.db.prepare("DELETE FROM spans WHERE id < 5").run();
    const ids = store.db
      .prepare(`SELECT id >> ${SPAN_ID_BUCKET_SHIFT} FROM spans WHERE span_id = unhex(?)`)
      .pluck()
      .all(shared);
    expect(new Set(ids).size).to.equal(2);
    expect(reader.span(shared).map((s) => s.traceId)).to.deep.equal([hexId(101, 16), hexId(100, 16)]);
    expect(reader.span(hexId(7778, 8))).to.deep.equal([]);
    // The index keeps a span id's last 4 bytes: an id that ends alike is not the span.
    expect(reader.span(`ff${shared.slice(2)}`)).to.deep.equal([]);
    // The reader's own statement seeks the index on both its columns: the bucket and the id's end.
    const plan = readerPlan(store.db, (fresh) => fresh.span(shared), "substr(s.span_id", shared);
    expect(plan).to.include("USING INDEX spans_by_span_id (<expr>=? AND <expr>=?)");
  });

  it("finds a trace's logs in every row-id bucket of the logs' trace index, however far apart", () => {
    const traceId = hexId(4242, 16);
    const write = (body: string, timeNs: bigint, trace = traceId) =>
      store.writeLogs(logsRequest("api", [{ timeNs, body, traceId: trace, spanId: hexId(1, 8) }]));
    write("first", T0);
    write("other trace", T0, hexId(4243, 16));
    // The index keeps a trace id's last 4 bytes: a trace whose id ends alike is not this one.
    write("look-alike trace", T0, `ff${traceId.slice(2)}`);
    // Row ids jump three buckets ahead, as after a long stretch of ingestion and retention.
    store.db.prepare("UPDATE sqlite_sequence SET seq = seq + ? WHERE name = 'logs'").run(3 << LOG_TRACE_BUCKET_SHIFT);
    write("second", T0 + MS);
    const buckets = store.db
      .prepare(`SELECT DISTINCT id >> ${LOG_TRACE_BUCKET_SHIFT} FROM logs WHERE trace_id = unhex(?)`)
      .pluck()
      .all(traceId);
    expect(buckets).to.have.length(2);
    const bodies = reader.logs({ traceId, attrs: [], attrContains: [], page: page() }).items.map((l) => l.body);
    expect(bodies).to.deep.equal(["second", "first"]);
    const plan = readerPlan(
      store.db,
      (fresh) => fresh.logs({ traceId, attrs: [], attrContains: [], page: page() }),
      "substr(x.trace_id",
      traceId,
    );
    expect(plan).to.include("USING INDEX logs_by_trace (<expr>=? AND <expr>=?)");
  });

  it("finds spans, traces and logs by an attribute whose postings are hashed, checking each row a hash finds", () => {
    // FNV-1a gives both of these request ids one hash: a hash alone cannot tell their rows apart.
    const [a, b] = ["req-991307", "req-1971740"];
    expect(valueHash(a)).to.equal(valueHash(b));
    // Enough of them in bucket 0 for the packer to judge the key (MIN_HASHED_ROWS).
    const requestIds = [a, b, ...Array.from({ length: 150 }, (_, i) => `req-${i}`)];
    const spansWith = (ids: string[], first: number, startNs: bigint) =>
      store.writeTraces(
        traceRequest(
          "api",
          ids.map((id, i) => ({
            traceId: hexId(1000 + first + i, 16),
            spanId: hexId(1000 + first + i, 8),
            startNs: startNs + BigInt(i),
            attributes: { "request.id": id },
          })),
        ),
      );
    const logsWith = (ids: string[], startNs: bigint) =>
      store.writeLogs(
        logsRequest(
          "api",
          ids.map((id, i) => ({ timeNs: startNs + BigInt(i), body: `done ${id}`, attributes: { "request.id": id } })),
        ),
      );
    spansWith(requestIds, 0, T0);
    logsWith(requestIds, T0);
    // Row ids move to the next posting bucket, which then gets rows of its own: bucket 0 is full.
    for (const table of ["spans", "logs"]) {
      store.db.prepare("UPDATE sqlite_sequence SET seq = ? WHERE name = ?").run(POSTING_BUCKET_ROWS - 1, table);
    }
    spansWith(["req-open"], 500, T0 + 100n);
    logsWith(["req-open"], T0 + 100n);
    const answers = () =>
      [...requestIds, "req-open", "req-none"].map((id) => ({
        spans: reader.spans({ attrs: [["request.id", id]], attrContains: [], page: page() }).items.map((s) => s.spanId),
        traces: reader.traces({ attrs: [["request.id", id]], page: page() }).items.map((t) => t.traceId),
        logs: reader.logs({ attrs: [["request.id", id]], attrContains: [], page: page() }).items.map((l) => l.body),
        statement: reader.spans({
          attrs: [["db.statement", `SELECT ${id.length % 30}`]],
          attrContains: [],
          page: page(),
        }).items.length,
      }));
    const before = answers();
    expect(before[0]).to.deep.equal({
      spans: [hexId(1000, 8)],
      traces: [hexId(1000, 16)],
      logs: [`done ${a}`],
      statement: 1,
    });
    expect(before.slice(-2).map((x) => x.logs)).to.deep.equal([["done req-open"], []]);
    const packer = new PostingPacker(store.db, store.writer.hashedKeys);
    while (packer.packNext()) {}
    for (const table of ["span_hashed_postings", "log_hashed_postings"]) {
      const blobs = Number(store.db.prepare(`SELECT count(*) FROM ${table} WHERE bucket = 0`).pluck().get());
      expect(blobs, table).to.be.greaterThan(0);
    }
    const keyId = store.db.prepare("SELECT id FROM attr_keys WHERE key = 'request.id'").pluck().get();
    expect(
      store.db.prepare("SELECT count(*) FROM span_postings WHERE bucket = 0 AND key_id = ?").pluck().get(keyId),
    ).to.equal(0n);
    expect(answers()).to.deep.equal(before);
    // The writer now writes request ids hashed as it stores them (pending blobs until their
    // bucket is full), two more values of one hash among them.
    const [c, d] = ["log-163378", "log-1200306"];
    expect(valueHash(c)).to.equal(valueHash(d));
    const late = [c, d, "req-late"];
    spansWith(late, 600, T0 + 200n);
    logsWith(late, T0 + 200n);
    for (const table of ["span_pending_hashes", "log_pending_hashes"]) {
      expect(store.db.prepare(`SELECT count(*) FROM ${table}`).pluck().get(), table).to.equal(1n);
    }
    late.forEach((id, i) => {
      expect(
        reader.spans({ attrs: [["request.id", id]], attrContains: [], page: page() }).items.map((x) => x.spanId),
      ).to.deep.equal([hexId(1600 + i, 8)]);
      expect(reader.traces({ attrs: [["request.id", id]], page: page() }).items.map((x) => x.traceId)).to.deep.equal([
        hexId(1600 + i, 16),
      ]);
      expect(
        reader.logs({ attrs: [["request.id", id]], attrContains: [], page: page() }).items.map((x) => x.body),
      ).to.deep.equal([`done ${id}`]);
    });
    expect(answers()).to.deep.equal(before);
  });

  it("finds a key's rows when the writer hashes it for the first time while the search is prepared", () => {
    const ids = Array.from({ length: 150 }, (_, i) => `req-${i}`);
    store.writeTraces(
      traceRequest(
        "api",
        ids.map((id, i) => ({
          traceId: hexId(2000 + i, 16),
          spanId: hexId(2000 + i, 8),
          startNs: T0 + BigInt(i),
          attributes: { "request.id": id },
        })),
      ),
    );
    store.db.prepare("UPDATE sqlite_sequence SET seq = ? WHERE name = 'spans'").run(POSTING_BUCKET_ROWS - 1);
    store.writeTraces(traceRequest("api", [{ traceId: hexId(3000, 16), spanId: hexId(3000, 8), startNs: T0 }]));
    // The pack commits after the reader looked the key up and before its search runs (a
    // private method, wrapped: the only way to time the race).
    const proto = SqliteReader.prototype as unknown as { postingsCondition: (...args: unknown[]) => unknown };
    const postingsCondition = proto.postingsCondition;
    proto.postingsCondition = function (this: unknown, ...args: unknown[]) {
      const condition = postingsCondition.apply(this, args);
      const packer = new PostingPacker(store.db);
      while (packer.packNext()) {}
      return condition;
    };
    try {
      const found = reader.spans({ attrs: [["request.id", "req-17"]], attrContains: [], page: page() });
      expect(Number(store.db.prepare("SELECT count(*) FROM span_hashed_postings").pluck().get())).to.be.greaterThan(0);
      expect(found.items.map((span) => span.spanId)).to.deep.equal([hexId(2017, 8)]);
    } finally {
      proto.postingsCondition = postingsCondition;
    }
  });

  it("finds rows by attribute in the oldest bucket that still holds any, however far the row ids went", () => {
    const span = (n: number) => ({
      traceId: hexId(n, 16),
      spanId: hexId(n, 8),
      startNs: T0,
      attributes: { tier: "gold" },
    });
    store.db.prepare("UPDATE sqlite_sequence SET seq = ? WHERE name = 'spans'").run(2 * POSTING_BUCKET_ROWS - 1);
    store.writeTraces(traceRequest("api", [span(5000)]));
    store.db.prepare("UPDATE sqlite_sequence SET seq = ? WHERE name = 'spans'").run(4 * POSTING_BUCKET_ROWS);
    store.writeTraces(traceRequest("api", [span(5001)]));
    // Retention took every row below the first of bucket 2.
    store.db.prepare("DELETE FROM spans WHERE id < ?").run(2 * POSTING_BUCKET_ROWS);
    const found = reader.spans({ attrs: [["tier", "gold"]], attrContains: [], page: page() });
    expect(found.items.map((x) => x.spanId).sort()).to.deep.equal([hexId(5000, 8), hexId(5001, 8)]);
  });

  it("searches logs by severity (text or number), body text, trace and span", () => {
    const bodies = (q: Partial<Parameters<SqliteReader["logs"]>[0]>) =>
      reader.logs({ attrs: [], attrContains: [], page: page(), ...q }).items.map((l) => l.body);
    expect(bodies({})).to.deep.equal(["boom", "request done", "disk almost full"]);
    expect(bodies({ severity: "warn" })).to.deep.equal(["disk almost full"]);
    expect(bodies({ severity: "ERR" })).to.deep.equal(["boom"]);
    expect(bodies({ contains: "almost" })).to.deep.equal(["disk almost full"]);
    expect(bodies({ contains: "%" })).to.deep.equal([]);
    expect(bodies({ traceId: hexId(1, 16) })).to.deep.equal(["boom", "disk almost full"]);
    expect(bodies({ spanId: hexId(2, 8) })).to.deep.equal(["boom"]);
    expect(bodies({ attrs: [["path", "/var"]] })).to.deep.equal(["disk almost full"]);
    expect(bodies({ service: "worker" })).to.deep.equal([]);
  });

  it("matches body text exactly, whether or not JSON escapes the search text", () => {
    store.writeLogs({
      resourceLogs: [
        {
          resource: {},
          scopeLogs: [
            {
              logRecords: [
                { timeUnixNano: String(T0 + 10n), body: { stringValue: 'he said "hi"\nthen left' } },
                {
                  timeUnixNano: String(T0 + 11n),
                  body: { kvlistValue: { values: [{ key: "msg", value: { stringValue: "timeout" } }] } },
                },
              ],
            },
          ],
        },
      ],
    });
    const bodies = (contains: string) =>
      reader.logs({ contains, attrs: [], attrContains: [], page: page() }).items.map((l) => l.body);
    expect(bodies('said "hi"')).to.deep.equal(['he said "hi"\nthen left']);
    expect(bodies('"hi"\nthen')).to.deep.equal(['he said "hi"\nthen left']);
    expect(bodies("timeout")).to.deep.equal([{ msg: "timeout" }]);
    expect(bodies('"msg":"timeout"')).to.deep.equal([{ msg: "timeout" }]);
    expect(bodies("n then")).to.deep.equal([]);
  });

  it("lists the services with telemetry in a window, last seen at their newest timestamp there", () => {
    expect(reader.services(WINDOW)).to.deep.equal([
      { name: "api", lastSeenAt: nsToIso(T0 + 28n * MS) },
      { name: "worker", lastSeenAt: nsToIso(T0 + 29n * MS) },
    ]);
    expect(reader.services({ fromNs: T0 + 28n * MS + 1n, toNs: WINDOW.toNs }).map((s) => s.name)).to.deep.equal([
      "worker",
    ]);
    // A log counts as a span does: api's newest in this window is its log at T0 + 2 ns.
    expect(reader.services({ fromNs: T0 - MS, toNs: T0 + 2n })).to.deep.equal([
      { name: "api", lastSeenAt: nsToIso(T0 + 2n) },
    ]);
    expect(reader.services({ fromNs: T0 + 30n * MS, toNs: WINDOW.toNs })).to.deep.equal([]);
  });
});

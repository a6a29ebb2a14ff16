import { createHash } from "node:crypto";
import type Database from "better-sqlite3";
import { expect } from "chai";
import { SqliteReader } from "../../../daemon/query/sqlite-reader.js";
import { readDetails, spanKeySql, storedDetails } from "../../../daemon/store/stored-span-fields.js";
import { TelemetryWriter } from "../../../daemon/store/telemetry-writer.js";
import { hexId, traceRequest } from "../../helpers/otlp-builders.js";
import { testStore } from "../../helpers/store.js";

const T0 = 1_700_000_000_000_000_000n;

describe("a span's stored fields and key", () => {
  let store: ReturnType<typeof testStore>;
  beforeEach(() => {
    store = testStore();
  });
  afterEach(() => store.close());

  const none = {
    traceState: null,
    events: null,
    links: null,
    droppedAttributesCount: 0,
    droppedEventsCount: 0,
    droppedLinksCount: 0,
  };

  it("keeps a span's rarely set fields as one JSON object of those it has, none as NULL", () => {
    expect(storedDetails(none)).to.equal(null);
    // An empty events text is none, as readers always took it.
    expect(storedDetails({ ...none, events: "", links: "" })).to.equal(null);
    const events = '[{"name":"retry","timeUnixNano":"1","attributes":{"n":2},"droppedAttributesCount":0}]';
    const stored = storedDetails({ ...none, traceState: 'k="\ud800"', events, droppedLinksCount: 3 });
    expect(stored).to.equal(`{"traceState":${JSON.stringify('k="\ud800"')},"events":${events},"droppedLinksCount":3}`);
    expect(readDetails(stored)).to.deep.equal({
      ...none,
      traceState: 'k="\ud800"',
      events: JSON.parse(events),
      droppedLinksCount: 3,
    });
    expect(readDetails(null)).to.deep.equal(none);
  });

  /** Writes `count` spans of one trace, a request of 500 at a time, with the span ids `idOf` gives. */
  const writeTrace = (traceId: string, count: number, idOf: (n: number) => string) => {
    for (let from = 0; from < count; from += 500) {
      const spans = Array.from({ length: Math.min(500, count - from) }, (_, i) => ({
        traceId,
        spanId: idOf(from + i),
        ...(from + i > 0 ? { parentSpanId: idOf(0) } : {}),
        startNs: T0 + BigInt(from + i),
      }));
      expect(store.writeTraces(traceRequest("api", spans))).to.equal(spans.length);
    }
  };

  it("finds one span of a trace by reading the rows that share its key, whether ids are random or count up", () => {
    const counting = (n: number) => hexId(n + 1, 8);
    // Random-looking and the same every run: drawn afresh, 3,000 ids put four on one key of
    // 65,536 in about one run of a hundred.
    const random = (n: number) => createHash("sha256").update(`span ${n}`).digest("hex").slice(0, 16);
    writeTrace(hexId(1, 16), 3000, counting);
    const randomIds = Array.from({ length: 3000 }, (_, n) => random(n));
    writeTrace(hexId(2, 16), 3000, (n) => randomIds[n] as string);
    const sharing = store.db.prepare(
      `SELECT count(*) FROM spans s INDEXED BY spans_by_trace
       WHERE s.trace_key = (SELECT trace_key FROM traces WHERE trace_id = unhex(?))
         AND ${spanKeySql("s.span_id")} = ${spanKeySql("unhex(?)")}`,
    );
    const most = (traceId: string, ids: string[]) =>
      Math.max(...ids.map((id) => Number(sharing.pluck().get(traceId, id))));
    // Ids that count up differ in their last bytes; random ones rarely share two bytes.
    expect(
      most(
        hexId(1, 16),
        Array.from({ length: 3000 }, (_, n) => counting(n)),
      ),
    ).to.equal(1);
    expect(most(hexId(2, 16), randomIds)).to.be.below(4);
  });

  /** The SQL `db` prepares while `run` runs. */
  const prepared = (db: Database.Database, run: () => void): string[] => {
    const seen: string[] = [];
    const prepare = db.prepare;
    db.prepare = ((sql: string) => {
      seen.push(sql);
      return prepare.call(db, sql);
    }) as typeof db.prepare;
    try {
      run();
    } finally {
      db.prepare = prepare;
    }
    return seen;
  };
  /** The query plan of `sql`, its parameters bound to NULL (none is inside a quoted literal). */
  const plan = (db: Database.Database, sql: string) => {
    const code = sql.replace(/'[^']*'/g, "''");
    const positional = new Array((code.match(/\?/g) ?? []).length).fill(null);
    const named = Object.fromEntries([...code.matchAll(/@(\w+)/g)].map((match) => [match[1], null]));
    const statement = db.prepare(`EXPLAIN QUERY PLAN ${sql}`);
    const rows = (
      Object.keys(named).length > 0 ? statement.all(...positional, named) : statement.all(...positional)
    ) as {
      detail: string;
    }[];
    return rows.map((row) => row.detail).join("\n");
  };

  it("looks one span of a trace up through the trace and the id's key, in the writer and every reader", () => {
    writeTrace(hexId(1, 16), 1000, (n) => hexId(n + 1, 8));
    const lookup = /SEARCH \w+ (EXISTS )?USING INDEX spans_by_trace \(trace_key=\? AND <expr>=\?\)/;
    // The writer: a span of a stored trace, whose parent is looked up too.
    const writes = prepared(store.db, () => {
      const writer = new TelemetryWriter(store.db, 0n);
      void writer;
    });
    const reads = prepared(store.db, () => {
      const reader = new SqliteReader(store.db);
      const page = { fromNs: T0 - 1n, toNs: T0 + 10_000n, limit: 10 };
      reader.storedSpanIds(hexId(1, 16), [hexId(5, 8)]);
      reader.spans({ attrs: [], attrContains: [], parentOperation: "op", page });
      reader.traceStats({ attrs: [], fromNs: page.fromNs, toNs: page.toNs }, { attr: "k" }, "count");
      reader.auditFacts({ untilNs: page.toNs, currentFromNs: T0, baselineFromNs: page.fromNs, graceNs: 1n });
    });
    const oneSpanOfTrace = [...writes, ...reads].filter((sql) =>
      /span_id = (unhex\()?@span|\.span_id = s\.parent_span_id|rs\.span_id = t\.root_span_id|s\.span_id = o\.span_id|s\.span_id IN \(SELECT id FROM wanted\)/.test(
        sql,
      ),
    );
    // The writer's lookup of a sent span and of a parent, the stored-ids check, the parent
    // filter, the root span's attribute, the audit's orphans.
    expect(oneSpanOfTrace).to.have.length(6);
    for (const sql of oneSpanOfTrace) expect(plan(store.db, sql), sql).to.match(lookup);
  });
});

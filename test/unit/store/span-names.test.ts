import { expect } from "chai";
import { decodeTraceRequest } from "../../../daemon/otlp/decode-request.js";
import { SqliteReader } from "../../../daemon/query/sqlite-reader.js";
import { dictionaryBoundFor } from "../../../daemon/store/attribute-values.js";
import { openWriteConnection } from "../../../daemon/store/connection.js";
import { MAX_SPAN_NAME_BYTES } from "../../../daemon/store/span-names.js";
import { TelemetryWriter } from "../../../daemon/store/telemetry-writer.js";
import { hexId, traceRequest } from "../../helpers/otlp-builders.js";
import { tempDir } from "../../helpers/temp-dir.js";

const T0 = 1_700_000_000_000_000_000n;
/** A size cap under which the table of span names holds BOUND names. */
const BOUND = 20;
const CAP = (BOUND * 600) / 0.03;

describe("span names (span_names, schema 19)", () => {
  let dir: ReturnType<typeof tempDir>;
  beforeEach(() => {
    dir = tempDir();
  });
  afterEach(() => dir.cleanup());

  const open = () => {
    const { db } = openWriteConnection(`${dir.path}/store.sqlite`);
    return { db, writer: new TelemetryWriter(db, 0n, CAP), reader: new SqliteReader(db) };
  };
  /** One trace per name: a root of that name and a child named "child of NAME". */
  const batchOf = (names: string[], from: number) => {
    const spans = names.flatMap((name, i) => [
      { traceId: hexId(from + i, 16), spanId: hexId((from + i) * 2, 8), name, startNs: T0 + BigInt(from + i) },
      {
        traceId: hexId(from + i, 16),
        spanId: hexId((from + i) * 2 + 1, 8),
        parentSpanId: hexId((from + i) * 2, 8),
        name: `child of ${name}`,
        startNs: T0 + BigInt(from + i),
      },
    ]);
    return decodeTraceRequest(Buffer.from(JSON.stringify(traceRequest("api", spans))), "json");
  };
  const write = (writer: TelemetryWriter, names: string[], from: number) => {
    const batch = batchOf(names, from);
    writer.transaction(() => writer.writeSpans(batch, 0n));
  };

  it("keeps at most its bound of names, and longer names never, in the table; every name reads back, filters and groups", () => {
    expect(dictionaryBoundFor(CAP)).to.equal(BOUND);
    const { db, writer, reader } = open();
    try {
      const long = "x".repeat(MAX_SPAN_NAME_BYTES + 1);
      const names = [long, ...Array.from({ length: 30 }, (_, i) => `GET /route/${i}`)];
      write(writer, names, 0);
      const stored = db.prepare("SELECT name FROM span_names").pluck().all() as string[];
      expect(stored).to.have.length(BOUND);
      expect(stored).to.not.include(long);
      // The table took the first names it saw (trace summaries are written before their spans).
      expect(stored).to.include("GET /route/0");
      expect(stored).to.not.include("GET /route/29");
      expect(stored).to.not.include("child of GET /route/29");

      const page = { fromNs: T0, toNs: T0 + 100n, limit: 100 };
      const spans = reader.spans({ attrs: [], attrContains: [], page }).items;
      expect(spans.map((span) => span.operation).sort()).to.deep.equal(
        names.flatMap((name) => [name, `child of ${name}`]).sort(),
      );
      const traces = reader.traces({ attrs: [], page }).items;
      expect(traces.map((trace) => trace.rootOperation).sort()).to.deep.equal([...names].sort());
      for (const name of [long, "GET /route/0", "GET /route/29"]) {
        expect(reader.spans({ attrs: [], attrContains: [], operation: name, page }).items, name).to.have.length(1);
        expect(
          reader.spans({ attrs: [], attrContains: [], parentOperation: name, page }).items.map((s) => s.operation),
          name,
        ).to.deep.equal([`child of ${name}`]);
        expect(reader.traces({ attrs: [], operation: name, page }).items, name).to.have.length(1);
      }
      const groups = reader.traceStats({ attrs: [], fromNs: T0, toNs: T0 + 100n }, "operation", "count");
      expect(groups.map((group) => group.group).sort()).to.deep.equal([...names].sort());
      const facet = reader.facets({ type: "traces", field: "operation" }, { fromNs: T0, toNs: T0 + 100n }, 100);
      expect(facet.map((value) => value.value).sort()).to.deep.equal([...names].sort());
    } finally {
      db.close();
    }
  });

  it("takes no new name once it turned one away, after a restart and under a larger cap too", () => {
    let { db, writer } = open();
    try {
      write(
        writer,
        Array.from({ length: BOUND }, (_, i) => `op ${i}`),
        0,
      );
      expect(db.prepare("SELECT count(*) FROM span_names").pluck().get()).to.equal(BigInt(BOUND));
    } finally {
      db.close();
    }
    ({ db, writer } = open());
    try {
      const count = () => db.prepare("SELECT count(*) FROM span_names").pluck().get();
      const before = count();
      // A larger cap would make room, but "late" was kept in rows: it stays so.
      const bigger = new TelemetryWriter(db, 0n, 0);
      write(bigger, ["late"], 100);
      expect(count()).to.equal(before);
      expect(db.prepare("SELECT count(*) FROM spans WHERE name = 'late'").pluck().get()).to.equal(1n);
      // A name the table holds is still named by id.
      write(bigger, ["op 1"], 200);
      const root = db.prepare("SELECT name_id, name FROM spans WHERE start_ns = ? AND parent_span_id IS NULL");
      expect(root.get(T0 + 200n)).to.deep.equal({
        name_id: db.prepare("SELECT id FROM span_names WHERE name = 'op 1'").pluck().get(),
        name: null,
      });
    } finally {
      db.close();
    }
  });

  it("forgets a name turned away in a transaction that was rolled back", () => {
    const { db, writer } = open();
    try {
      // Fill the table but for one place.
      write(
        writer,
        Array.from({ length: BOUND / 2 - 1 }, (_, i) => `op ${i}`),
        0,
      );
      db.prepare("INSERT INTO span_names (name) VALUES ('one more')").run();
      const a = decodeTraceRequest(
        Buffer.from(
          JSON.stringify(
            traceRequest("api", [{ traceId: hexId(50, 16), spanId: hexId(500, 8), name: "a", startNs: T0 }]),
          ),
        ),
        "json",
      );
      // "a" takes the last place; the new names after it in the same transaction are turned away.
      expect(() =>
        writer.transaction(() => {
          writer.writeSpans(a, 0n);
          writer.writeSpans(batchOf(["b"], 60), 0n);
          expect(db.prepare("SELECT count(*) FROM meta WHERE key = 'span_names_closed'").pluck().get()).to.equal(1n);
          throw new Error("disk on fire");
        }),
      ).to.throw("disk on fire");
      // Nothing of it is left: the table is not closed, and "b" takes the last place.
      write(writer, ["b"], 60);
      expect(db.prepare("SELECT name FROM span_names WHERE name = 'b'").pluck().get()).to.equal("b");
    } finally {
      db.close();
    }
  });
});

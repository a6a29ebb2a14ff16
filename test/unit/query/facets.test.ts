import { expect } from "chai";
import { type FacetWindow, SqliteFacets } from "../../../daemon/query/sqlite-facets.js";
import { SqliteReader } from "../../../daemon/query/sqlite-reader.js";
import { openReadConnection } from "../../../daemon/store/connection.js";
import { PostingPacker } from "../../../daemon/store/posting-packer.js";
import { POSTING_BUCKET_ROWS } from "../../../daemon/store/postings.js";
import { seededRandom as random } from "../../helpers/fuzz-payloads.js";
import { hexId, type SpanSpec, traceRequest } from "../../helpers/otlp-builders.js";
import { testStore } from "../../helpers/store.js";

const MS = 1_000_000n;
const T0 = 1_700_000_000_000_000_000n;

/** A span's attributes as OTLP AnyValues, so doubles that are whole numbers stay doubles. */
type RawValue = { doubleValue: number } | { intValue: string } | { boolValue: boolean } | { stringValue: string };

/** Trace requests whose spans carry `attributes[i]` as given, in service `service`. */
function typedRequest(service: string, first: number, attributes: Record<string, RawValue>[]) {
  const request = traceRequest(
    service,
    attributes.map((_, i) => ({
      traceId: hexId(first + i, 16),
      spanId: hexId(first + i, 8),
      startNs: T0 + BigInt(i) * MS,
    })),
  );
  const spans = request.resourceSpans[0]?.scopeSpans[0]?.spans ?? [];
  spans.forEach((span, i) => {
    (span as { attributes: unknown }).attributes = Object.entries(attributes[i] ?? {}).map(([key, value]) => ({
      key,
      value,
    }));
  });
  return request;
}

/** How many spans a span search for `key=value` (and the service) finds in the window. */
function searchCount(reader: SqliteReader, window: FacetWindow, key: string, value: string): number {
  const page = { fromNs: window.fromNs, toNs: window.toNs, limit: 1_000_000 };
  return reader.spans({ service: window.service, attrs: [[key, value]], attrContains: [], page }).items.length;
}

/** Each value of a facet over `key` mapped to its count, and each to what span search counts. */
function facetAndSearch(reader: SqliteReader, window: FacetWindow, key: string) {
  const facet = reader.facets({ type: "traces", field: "attribute_values", key }, window, 1000);
  return {
    facet: Object.fromEntries(facet.map((row) => [row.value, row.count])),
    search: Object.fromEntries(facet.map((row) => [row.value, searchCount(reader, window, key, row.value)])),
  };
}

function pick<T>(next: () => number, values: T[]): T {
  return values[Math.floor(next() * values.length)] as T;
}

describe("attribute facets", () => {
  it("with or without a service, count number and boolean values as the text span search matches", () => {
    const store = testStore();
    try {
      const values: Record<string, RawValue> = {
        small: { doubleValue: 1.25e-7 },
        large: { doubleValue: 1e21 },
        sum: { doubleValue: 0.1 + 0.2 },
        negativeZero: { doubleValue: -0 },
        whole: { doubleValue: 2 },
        int: { intValue: "42" },
        bigInt: { intValue: "9007199254740993" },
        negativeInt: { intValue: "-9223372036854775808" },
        flag: { boolValue: true },
        text: { stringValue: "1.25e-07" },
      };
      const attributes = (i: number) =>
        Object.fromEntries(
          Object.entries(values).map(([key, value]) => [
            `n.${key}`,
            key === "flag" ? { boolValue: i % 4 === 0 } : value,
          ]),
        );
      store.writeTraces(
        typedRequest(
          "checkout",
          0,
          Array.from({ length: 8 }, (_, i) => attributes(2 * i)),
        ),
      );
      store.writeTraces(
        typedRequest(
          "cart",
          8,
          Array.from({ length: 8 }, (_, i) => attributes(2 * i + 1)),
        ),
      );
      const db = openReadConnection(store.path);
      try {
        const reader = new SqliteReader(db);
        const whole: FacetWindow = { fromNs: T0, toNs: T0 + 60_000n * MS };
        for (const window of [whole, { ...whole, service: "checkout" }, { ...whole, service: "cart" }]) {
          for (const key of Object.keys(values)) {
            const { facet, search } = facetAndSearch(reader, window, `n.${key}`);
            const label = `n.${key} ${window.service ?? "(all)"}`;
            expect(facet, label).to.deep.equal(search);
            const total = Object.values(facet).reduce((a, b) => a + b, 0);
            expect(total, label).to.equal(window.service === undefined ? 16 : 8);
          }
        }
        const numbers = facetAndSearch(reader, { ...whole, service: "checkout" }, "n.small");
        expect(numbers.facet).to.deep.equal({ "1.25e-7": 8 });
        // A substring filter reads the same text: SQLite's is 1.25e-07, and 1 for true.
        const containing = (key: string, text: string) =>
          reader.spans({ attrs: [], attrContains: [[key, text]], page: { ...whole, limit: 100 } }).items.length;
        expect(containing("n.small", "25e-7")).to.equal(16);
        expect(containing("n.flag", "true")).to.equal(4);
        expect(containing("n.large", "e+21")).to.equal(16);
        // Stats grouped by an attribute name their groups with the same text (each span is a root).
        const groups = reader.traceStats({ ...whole, service: "cart", attrs: [] }, { attr: "n.sum" }, "count");
        expect(groups).to.deep.equal([{ group: "0.30000000000000004", value: 8, count: 8 }]);
      } finally {
        db.close();
      }
    } finally {
      store.close();
    }
  });

  it("count the values of a key the writer writes hashed in the window's only bucket", () => {
    const store = testStore();
    try {
      const spans = (first: number, count: number, startNs: bigint, req: (n: number) => string) =>
        traceRequest(
          "api",
          Array.from({ length: count }, (_, i) => ({
            traceId: hexId(first + i, 16),
            spanId: hexId(first + i, 8),
            startNs: startNs + BigInt(i),
            attributes: { req: req(first + i) },
          })),
        );
      // Bucket 0, hours before the window: a value each, so the packer has the writer hash `req`.
      store.writeTraces(spans(0, 200, T0 - 7_200_000n * MS, (n) => `old-${n}`));
      store.db.prepare("UPDATE sqlite_sequence SET seq = ? WHERE name = 'spans'").run(POSTING_BUCKET_ROWS - 1);
      const packer = new PostingPacker(store.db, store.writer.hashedKeys);
      store.writeTraces(spans(1000, 1, T0, () => "new-a"));
      while (packer.packNext()) {}
      // Bucket 1 (the window's only one): `req` in pending blobs, one value twice.
      store.writeTraces(spans(2000, 3, T0 + MS, (n) => (n < 2002 ? "new-b" : "new-c")));
      expect(Number(store.db.prepare("SELECT count(*) FROM span_pending_hashes").pluck().get())).to.equal(1);
      const db = openReadConnection(store.path);
      try {
        const reader = new SqliteReader(db);
        const window = { fromNs: T0 - MS, toNs: T0 + 10n * MS };
        const { facet, search } = facetAndSearch(reader, window, "req");
        expect(facet).to.deep.equal({ "new-a": 1, "new-b": 2, "new-c": 1 });
        expect(search).to.deep.equal(facet);
        const keys = reader.facets({ type: "traces", field: "attribute_keys" }, window, 10);
        expect(keys).to.deep.equal([{ value: "req", count: 4 }]);
      } finally {
        db.close();
      }
    } finally {
      store.close();
    }
  });

  it("count each row once when the writer packs a bucket while a facet reads", () => {
    const store = testStore();
    try {
      const spans = (first: number, count: number) =>
        traceRequest(
          "api",
          Array.from({ length: count }, (_, i) => ({
            traceId: hexId(first + i, 16),
            spanId: hexId(first + i, 8),
            startNs: T0 + BigInt(first + i),
            attributes: { req: `r${first + i}` },
          })),
        );
      store.writeTraces(spans(0, 200));
      store.db.prepare("UPDATE sqlite_sequence SET seq = ? WHERE name = 'spans'").run(POSTING_BUCKET_ROWS - 1);
      store.writeTraces(spans(1000, 1));
      const db = openReadConnection(store.path);
      // The pack commits between the facet's first statement and the next (a private method,
      // wrapped: the only way to time the race).
      const facets = SqliteFacets.prototype as unknown as { indexCounts: (...args: unknown[]) => unknown };
      const indexCounts = facets.indexCounts;
      facets.indexCounts = function (this: unknown, ...args: unknown[]) {
        const counts = indexCounts.apply(this, args);
        const packer = new PostingPacker(store.db);
        while (packer.packNext()) {}
        return counts;
      };
      try {
        const reader = new SqliteReader(db);
        const keys = reader.facets({ type: "traces", field: "attribute_keys" }, { fromNs: T0, toNs: T0 + MS }, 10);
        expect(Number(store.db.prepare("SELECT count(*) FROM span_hashed_postings").pluck().get())).to.be.greaterThan(
          0,
        );
        expect(keys).to.deep.equal([{ value: "req", count: 201 }]);
      } finally {
        facets.indexCounts = indexCounts;
        db.close();
      }
    } finally {
      store.close();
    }
  });

  for (const packed of [false, true]) {
    const how = packed ? ", their full buckets' unique values' postings hashed" : "";
    it(`count what the window's spans carry, whatever order they were stored in and whatever was deleted${how}`, function () {
      this.timeout(60_000);
      const store = testStore();
      const next = random(7);
      try {
        // Batches of spans spread over 2 hours, stored in shuffled time order, some across
        // posting-bucket boundaries; then a few deleted, as retention would.
        // When `packed`, full buckets are packed between batches, as obsd's writer does, and the
        // writer then writes `req` hashed as it stores it.
        const packer = new PostingPacker(store.db, store.writer.hashedKeys);
        let n = 0;
        for (let batch = 0; batch < 40; batch++) {
          const size = batch === 10 ? POSTING_BUCKET_ROWS + 50 : 1 + Math.floor(next() * 400);
          const spans: SpanSpec[] = [];
          for (let i = 0; i < size; i++, n++) {
            spans.push({
              traceId: hexId(n, 16),
              spanId: hexId(n, 8),
              startNs: T0 + BigInt(Math.floor(next() * 7_200_000)) * MS,
              attributes: {
                route: `/r${Math.floor(next() * 5)}`,
                ...(next() < 0.3 ? { region: next() < 0.5 ? "eu" : "us" } : {}),
                // Numbers whose text differs between SQLite and JavaScript, integers and booleans.
                ...(next() < 0.5 ? { "n.num": pick(next, [1.25e-7, 0.1 + 0.2, 123.456e-30, -2.5]) } : {}),
                ...(next() < 0.3 ? { "n.int": pick(next, [42, -7, 2 ** 53 + 2]) } : {}),
                ...(next() < 0.5 ? { "n.flag": next() < 0.5 } : {}),
                // A value of its own (hashed once its bucket is full, when `packed`), on few enough
                // spans that a facet of its values lists every one.
                ...(next() < 0.04 ? { req: `q${n}` } : {}),
              },
            });
          }
          store.writeTraces(traceRequest(`svc${batch % 3}`, spans));
          while (packed && packer.packNext()) {}
        }
        store.db.prepare("DELETE FROM spans WHERE id % 97 = 0").run();
        if (packed) {
          const pending = Number(store.db.prepare("SELECT count(*) FROM span_pending_hashes").pluck().get());
          expect(pending).to.be.greaterThan(0);
          // Every full bucket: all but the one the next row goes to.
          const seq = Number(store.db.prepare("SELECT seq FROM sqlite_sequence WHERE name = 'spans'").pluck().get());
          const full = Array.from({ length: Math.floor((seq + 1) / POSTING_BUCKET_ROWS) }, (_, i) => BigInt(i));
          expect(full).to.not.deep.equal([]);
          expect(store.db.prepare("SELECT DISTINCT bucket FROM span_hashed_postings").pluck().all()).to.deep.equal(
            full,
          );
        }
        const db = openReadConnection(store.path);
        try {
          const reader = new SqliteReader(db);
          for (const [fromMs, toMs] of [
            [0, 7_200_000],
            [3_600_000, 4_500_000],
            [100_000, 160_000],
          ] as const) {
            for (const service of [undefined, "svc1"]) {
              const window = { fromNs: T0 + BigInt(fromMs) * MS, toNs: T0 + BigInt(toMs) * MS, service };
              const label = `${fromMs} ${service ?? "(all)"}`;
              // What the window's spans carry, per key: read from the stored attributes.
              const carried = Object.fromEntries(
                (
                  db
                    .prepare(
                      `SELECT a.key, count(*) FROM spans s JOIN services v ON v.id = s.service_id, json_each(obs_attributes_json(s.attributes)) a
                     WHERE s.start_ns BETWEEN ? AND ? AND (? IS NULL OR v.name = ?) GROUP BY 1`,
                    )
                    .raw()
                    .all(window.fromNs, window.toNs, service ?? null, service ?? null) as [string, bigint][]
                ).map(([key, count]) => [key, Number(count)]),
              );
              const keys = reader.facets({ type: "traces", field: "attribute_keys" }, window, 500);
              expect(Object.fromEntries(keys.map((row) => [row.value, row.count])), label).to.deep.equal(carried);
              for (const key of ["route", "region", "n.num", "n.int", "n.flag", "req"]) {
                const { facet, search } = facetAndSearch(reader, window, key);
                expect(facet, `${label} ${key}`).to.deep.equal(search);
                const total = Object.values(facet).reduce((a, b) => a + b, 0);
                expect(total, `${label} ${key}`).to.equal(carried[key] ?? 0);
              }
            }
          }
        } finally {
          db.close();
        }
      } finally {
        store.close();
      }
    });
  }
});

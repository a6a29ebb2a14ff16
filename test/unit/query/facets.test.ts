import { expect } from "chai";
import { SqliteFacets } from "../../../daemon/query/sqlite-facets.js";
import { openReadConnection } from "../../../daemon/store/connection.js";
import { POSTING_BUCKET_ROWS } from "../../../daemon/store/postings.js";
import { hexId, type SpanSpec, traceRequest } from "../../helpers/otlp-builders.js";
import { testStore } from "../../helpers/store.js";

const MS = 1_000_000n;
const T0 = 1_700_000_000_000_000_000n;

/** A small deterministic generator (mulberry32). */
function random(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

describe("attribute facets", () => {
  it("count what the window's spans carry, whatever order they were stored in and whatever was deleted", function () {
    this.timeout(60_000);
    const store = testStore();
    const next = random(7);
    try {
      // Batches of spans spread over 2 hours, stored in shuffled time order, some across
      // posting-bucket boundaries; then a few deleted, as retention would.
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
            },
          });
        }
        store.writeTraces(traceRequest(`svc${batch % 3}`, spans));
      }
      store.db.prepare("DELETE FROM spans WHERE id % 97 = 0").run();
      const db = openReadConnection(store.path);
      try {
        const facets = new SqliteFacets(db);
        for (const [fromMs, toMs] of [
          [0, 7_200_000],
          [3_600_000, 4_500_000],
          [100_000, 160_000],
        ] as const) {
          const window = { fromNs: T0 + BigInt(fromMs) * MS, toNs: T0 + BigInt(toMs) * MS };
          const expected = (key: string | null) =>
            Object.fromEntries(
              (
                db
                  .prepare(
                    `SELECT ${key === null ? "a.key" : "a.value"}, count(*) FROM spans s, json_each(s.attributes) a
                     WHERE s.start_ns BETWEEN ? AND ? ${key === null ? "" : "AND a.key = ?"} GROUP BY 1`,
                  )
                  .raw()
                  .all(window.fromNs, window.toNs, ...(key === null ? [] : [key])) as [string, bigint][]
              ).map(([value, count]) => [value, Number(count)]),
            );
          const got = (field: "attribute_keys" | "attribute_values", key?: string) =>
            Object.fromEntries(
              facets
                .facets(
                  field === "attribute_keys"
                    ? { type: "traces", field }
                    : { type: "traces", field, key: key as string },
                  window,
                  500,
                )
                .map((row) => [row.value, row.count]),
            );
          expect(got("attribute_keys"), `${fromMs}`).to.deep.equal(expected(null));
          expect(got("attribute_values", "route"), `${fromMs}`).to.deep.equal(expected("route"));
          expect(got("attribute_values", "region"), `${fromMs}`).to.deep.equal(expected("region"));
        }
      } finally {
        db.close();
      }
    } finally {
      store.close();
    }
  });
});

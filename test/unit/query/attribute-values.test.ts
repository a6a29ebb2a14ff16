import Database from "better-sqlite3";
import { expect } from "chai";
import { AttributeKeys } from "../../../daemon/query/attribute-keys.js";
import { registerAttributeFunctions } from "../../../daemon/query/sql-parts.js";
import { SqliteReader } from "../../../daemon/query/sqlite-reader.js";
import { SAMPLE } from "../../../daemon/store/attribute-values.js";
import { hexId, traceRequest } from "../../helpers/otlp-builders.js";
import { testStore } from "../../helpers/store.js";

const T0 = 1_700_000_000_000_000_000n;

describe("attribute values: the value dictionary as a read connection sees it", () => {
  let store: ReturnType<typeof testStore>;
  beforeEach(() => {
    store = testStore();
  });
  afterEach(() => store.close());

  /** Spans `from` to `to` - 1, each with a value of `route` that repeats (stored once once sampled). */
  const writeSpans = (from: number, to: number, route: (n: number) => string) =>
    store.writeTraces(
      traceRequest(
        "api",
        Array.from({ length: to - from }, (_, i) => ({
          traceId: hexId(from + i, 16),
          spanId: hexId(from + i, 8),
          startNs: T0 + BigInt(from + i),
          attributes: { route: route(from + i) },
        })),
      ),
    );
  const values = () => store.db.prepare("SELECT count(*) FROM attr_values").pluck().get();

  it("reads values the writer stored after the reader's connection was opened", () => {
    writeSpans(1, SAMPLE + 1, (n) => `/early/${n % 4}`);
    expect(values()).to.equal(0n);
    const db = new Database(store.path, { readonly: true });
    try {
      db.defaultSafeIntegers(true);
      const reader = new SqliteReader(db);
      writeSpans(SAMPLE + 1, SAMPLE + 11, (n) => `/late/${n % 2}`);
      expect(values()).to.equal(2n);
      const page = { fromNs: T0 + BigInt(SAMPLE + 1), toNs: T0 + 100_000n, limit: 100 };
      const routes = reader.spans({ attrs: [], attrContains: [], page }).items.map((span) => span.attributes.route);
      expect(routes).to.deep.equal(Array.from({ length: 10 }, (_, i) => `/late/${(SAMPLE + 10 - i) % 2}`));
      registerAttributeFunctions(db);
      const found = db
        .prepare("SELECT count(*) FROM spans WHERE obs_attribute_text(attributes, 'route') = '/late/1'")
        .pluck()
        .get();
      expect(found).to.equal(5n);
    } finally {
      db.close();
    }
  });

  it("holds at most its bound of values and reads the others again as rows name them", () => {
    writeSpans(1, SAMPLE + 1, (n) => `/route/${n % 2}`);
    writeSpans(SAMPLE + 1, SAMPLE + 41, (n) => `/route/${n % 20}`);
    expect(values()).to.equal(20n);
    const keys = new AttributeKeys(store.db, undefined, 4);
    const rows = store.db.prepare("SELECT attributes FROM spans ORDER BY id").pluck().all() as Buffer[];
    expect(rows.map((row) => keys.json(row))).to.deep.equal(
      Array.from({ length: SAMPLE + 40 }, (_, i) =>
        JSON.stringify({ route: `/route/${(i + 1) % (i < SAMPLE ? 2 : 20)}` }),
      ),
    );
    expect(keys.valueJson(rows.at(-1) as Buffer, '"route"')).to.equal(`"/route/${(SAMPLE + 40) % 20}"`);
  });
});

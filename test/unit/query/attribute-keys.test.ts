import Database from "better-sqlite3";
import { expect } from "chai";
import { AttributeKeys } from "../../../daemon/query/attribute-keys.js";
import { registerAttributeFunctions } from "../../../daemon/query/sql-parts.js";
import { SqliteReader } from "../../../daemon/query/sqlite-reader.js";
import { hexId, traceRequest } from "../../helpers/otlp-builders.js";
import { testStore } from "../../helpers/store.js";

const T0 = 1_700_000_000_000_000_000n;

describe("attribute keys: the key dictionary as a read connection sees it", () => {
  let store: ReturnType<typeof testStore>;
  beforeEach(() => {
    store = testStore();
  });
  afterEach(() => store.close());

  const writeSpan = (n: number, attributes: Record<string, string | number>) =>
    store.writeTraces(
      traceRequest("api", [{ traceId: hexId(n, 16), spanId: hexId(n, 8), startNs: T0 + BigInt(n), attributes }]),
    );

  it("reads keys the writer made after the reader's connection was opened", () => {
    writeSpan(1, { first: "a" });
    const db = new Database(store.path, { readonly: true });
    try {
      db.defaultSafeIntegers(true);
      const reader = new SqliteReader(db);
      writeSpan(2, { later: "b", first: "c" });
      const page = { fromNs: T0, toNs: T0 + 10n, limit: 10 };
      expect(reader.spans({ attrs: [], attrContains: [], page }).items.map((span) => span.attributes)).to.deep.equal([
        { later: "b", first: "c" },
        { first: "a" },
      ]);
      // A filter on the new key, answered by the SQL function on the same connection.
      registerAttributeFunctions(db);
      const found = db
        .prepare("SELECT count(*) FROM spans WHERE obs_attribute_text(attributes, 'later') = 'b'")
        .pluck()
        .get();
      expect(found).to.equal(1n);
    } finally {
      db.close();
    }
  });

  it("holds at most its bound of keys and reads the others again as rows name them", () => {
    for (let n = 1; n <= 12; n++) writeSpan(n, { [`key.${n}`]: n, shared: "s" });
    const keys = new AttributeKeys(store.db, 4);
    const rows = store.db.prepare("SELECT attributes FROM spans ORDER BY id").pluck().all() as Buffer[];
    expect(rows.map((row) => keys.json(row))).to.deep.equal(
      Array.from({ length: 12 }, (_, i) => JSON.stringify({ [`key.${i + 1}`]: i + 1, shared: "s" })),
    );
    expect(keys.valueJson(rows[7] as Buffer, '"key.8"')).to.equal("8");
    expect(keys.valueJson(rows[7] as Buffer, '"key.9"')).to.equal(undefined);
  });

  it("gives back a record whose key has a lone surrogate as it was sent, kept whole", () => {
    writeSpan(1, { "k\ud800": "one", "k\udc00": "two", plain: "p" });
    const page = { fromNs: T0, toNs: T0 + 10n, limit: 10 };
    const [span] = new SqliteReader(store.db).spans({ attrs: [], attrContains: [], page }).items;
    expect(span?.attributes).to.deep.equal({ "k\ud800": "one", "k\udc00": "two", plain: "p" });
  });
});

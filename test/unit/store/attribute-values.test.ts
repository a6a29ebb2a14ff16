import { expect } from "chai";
import { decodeTraceRequest } from "../../../daemon/otlp/decode-request.js";
import { SqliteReader } from "../../../daemon/query/sqlite-reader.js";
import { attributesJson, codeAttributes, type LastKeys } from "../../../daemon/store/attribute-coding.js";
import {
  AttributeValueDictionary,
  CHECK_EVERY,
  dictionaryBoundFor,
  MAX_DICTIONARY_VALUE_BYTES,
  SAMPLE,
  SAMPLING_AT_ONCE,
  STALE_AFTER,
} from "../../../daemon/store/attribute-values.js";
import { hexId, logsRequest, traceRequest } from "../../helpers/otlp-builders.js";
import { testStore } from "../../helpers/store.js";

const T0 = 1_700_000_000_000_000_000n;

describe("attribute values: the writer's value dictionary", () => {
  let store: ReturnType<typeof testStore>;
  beforeEach(() => {
    store = testStore();
  });
  afterEach(() => store.close());

  /** Key ids 1.. by key text, as attr_keys would give them. */
  const keyIds = new Map<string, number>();
  const keyIdOf = (keyJson: string) => {
    let id = keyIds.get(keyJson);
    if (id === undefined) {
      id = keyIds.size + 1;
      keyIds.set(keyJson, id);
    }
    return id;
  };
  const keyJsonOf = (id: number) => {
    for (const [json, known] of keyIds) if (known === id) return Buffer.from(json);
    return undefined;
  };
  const valueRows = () =>
    (store.db.prepare("SELECT id, value FROM attr_values ORDER BY id").raw().all() as [bigint, Buffer][]).map(
      ([id, value]) => [Number(id), value.toString("utf8")],
    );
  const valueBytesOf = (id: number) =>
    store.db.prepare("SELECT value FROM attr_values WHERE id = ?").pluck().get(id) as Buffer | undefined;
  /** Codes `object` as the writer does, inside a transaction. */
  const code = (dictionary: AttributeValueDictionary, object: Record<string, unknown>, last?: LastKeys) =>
    store.db.transaction(() => codeAttributes(JSON.stringify(object), keyIdOf, last, dictionary.idOf))();
  /**
   * Whether a coded blob's first attribute names a dictionary value: its tag, after the blob's
   * first byte, has the kind 3 in its low two bits (attribute-coding.ts).
   */
  const namesValue = (coded: Buffer) => coded[0] === 0 && ((coded[1] as number) & 3) === 3;

  it("keeps a key's values in rows while it samples them, then stores repeating ones once", () => {
    const dictionary = new AttributeValueDictionary(store.db);
    const routes = ["/users/{id}", "/orders", "/cart", "/search"];
    const coded: Buffer[] = [];
    for (let i = 0; i < SAMPLE + 10; i++) coded.push(code(dictionary, { route: routes[i % 4] }));
    expect(coded.slice(0, SAMPLE).some(namesValue)).to.equal(false);
    expect(coded.slice(SAMPLE).every(namesValue)).to.equal(true);
    expect(valueRows()).to.deep.equal(routes.map((_, i) => [i + 1, JSON.stringify(routes[(SAMPLE + i) % 4])]));
    // Every row, whichever form, gives back its text.
    for (const [i, blob] of coded.entries()) {
      expect(attributesJson(blob, keyJsonOf, valueBytesOf)).to.equal(JSON.stringify({ route: routes[i % 4] }));
    }
    // The same value is named by the same id each time.
    expect(coded[SAMPLE]?.equals(coded[SAMPLE + 4] as Buffer)).to.equal(true);
  });

  it("keeps in rows the values of a key that do not repeat, and values too short or too long to be worth an id", () => {
    const dictionary = new AttributeValueDictionary(store.db);
    const long = "x".repeat(MAX_DICTIONARY_VALUE_BYTES);
    for (let i = 0; i < SAMPLE * 3; i++) {
      const blob = code(dictionary, { request_id: `req-${i}`, code: 7, body: long });
      expect(attributesJson(blob, keyJsonOf, valueBytesOf)).to.equal(
        JSON.stringify({ request_id: `req-${i}`, code: 7, body: long }),
      );
    }
    expect(valueRows()).to.deep.equal([]);
  });

  it("stops storing a key's values once more than half of them are new to the dictionary", () => {
    const dictionary = new AttributeValueDictionary(store.db);
    for (let i = 0; i < SAMPLE; i++) code(dictionary, { user: `user-${i % 8}` });
    expect(namesValue(code(dictionary, { user: "user-1" }))).to.equal(true);
    // From here every value is new: after a check's worth of them, the key's values stay in rows.
    let lastCoded = -1;
    for (let i = 0; i < CHECK_EVERY * 2; i++) {
      if (namesValue(code(dictionary, { user: `new-user-${i}` }))) lastCoded = i;
    }
    expect(lastCoded).to.be.within(CHECK_EVERY - 10, CHECK_EVERY);
    // "user-1", then every new value up to the check.
    expect(valueRows()).to.have.length(1 + lastCoded + 1);
  });

  it("gives the places of keys that stopped coming to new keys once sampling has been full a while", () => {
    const dictionary = new AttributeValueDictionary(store.db);
    store.db.transaction(() => {
      // As many keys as can be sampled at once, each seen a few times, then never again.
      for (let k = 0; k < SAMPLING_AT_ONCE; k++) {
        for (let i = 0; i < 3; i++)
          codeAttributes(JSON.stringify({ [`rare.${k}`]: `v-${i}` }), keyIdOf, undefined, dictionary.idOf);
      }
    })();
    const coded = store.db.transaction(() => {
      let named = 0;
      for (let i = 0; i < STALE_AFTER + SAMPLE + 100; i++) {
        const blob = codeAttributes(JSON.stringify({ route: `/r/${i % 10}` }), keyIdOf, undefined, dictionary.idOf);
        if (namesValue(blob)) named++;
      }
      return named;
    })();
    // Turned away until sampling had been full for STALE_AFTER values, then sampled, then coded.
    expect(coded).to.equal(100);
    expect(valueRows()).to.have.length(10);
  });

  it("adds no value past its bound, keeps naming the values it holds, and stops coding a key it refuses", () => {
    const dictionary = new AttributeValueDictionary(store.db, 3);
    const hosts = ["host-a", "host-b", "host-c", "host-d", "host-e"];
    for (let i = 0; i < SAMPLE; i++) code(dictionary, { host: hosts[i % 5] });
    const after = hosts.map((host) => code(dictionary, { host }));
    expect(after.map(namesValue)).to.deep.equal([true, true, true, false, false]);
    expect(valueRows()).to.have.length(3);
    // A writer started on the full dictionary knows it is full.
    const restarted = new AttributeValueDictionary(store.db, 3);
    for (let i = 0; i < SAMPLE; i++) code(restarted, { host: hosts[i % 5] });
    expect(namesValue(code(restarted, { host: "host-f" }))).to.equal(false);
    expect(namesValue(code(restarted, { host: "host-b" }))).to.equal(true);
    // Values the full dictionary refuses count as new ones: once most are, the key goes back to rows.
    for (let i = 0; i < CHECK_EVERY; i++) code(restarted, { host: `refused-${i}` });
    expect(namesValue(code(restarted, { host: "host-b" }))).to.equal(false);
  });

  it("bounds the dictionary by a share of the store's size cap", () => {
    expect(dictionaryBoundFor(0)).to.equal(50_000);
    expect(dictionaryBoundFor(1024 ** 3)).to.equal(50_000);
    expect(dictionaryBoundFor(2 * 1024 ** 2)).to.equal(104);
    // A writer of a store capped at 2 MiB stops at 104 values, and every span reads back.
    const small = testStore(2 * 1024 ** 2);
    try {
      const spans = Array.from({ length: SAMPLE + 400 }, (_, i) => ({
        traceId: hexId(i + 1, 16),
        spanId: hexId(i + 1, 8),
        startNs: T0 + BigInt(i),
        attributes: { host: `host-${i % 120}` },
      }));
      small.writeTraces(traceRequest("api", spans));
      expect(small.db.prepare("SELECT count(*) FROM attr_values").pluck().get()).to.equal(104n);
      const page = { fromNs: T0, toNs: T0 + 10_000n, limit: 1000 };
      const read = new SqliteReader(small.db).spans({ attrs: [], attrContains: [], page }).items;
      expect(read.map((span) => span.attributes)).to.deep.equal(spans.map((span) => span.attributes).reverse());
    } finally {
      small.close();
    }
  });

  it("after a transaction the writer rolled back, names no value that the rollback took away", () => {
    const span = (n: number, env: string) => ({
      traceId: hexId(n, 16),
      spanId: hexId(n, 8),
      startNs: T0 + BigInt(n),
      attributes: { env },
    });
    store.writeTraces(
      traceRequest(
        "api",
        Array.from({ length: SAMPLE }, (_, i) => span(i + 1, i % 2 === 0 ? "production" : "staging")),
      ),
    );
    const batch = decodeTraceRequest(Buffer.from(JSON.stringify(traceRequest("api", [span(1000, "canary")]))), "json");
    expect(() =>
      store.writer.transaction(() => {
        store.writer.writeSpans(batch, 0n);
        throw new Error("disk full");
      }),
    ).to.throw("disk full");
    // Another value takes the rolled-back id; "canary" gets an id of its own again.
    store.writeTraces(traceRequest("api", [span(1001, "qa-eu"), span(1002, "canary")]));
    const page = { fromNs: T0 + 1001n, toNs: T0 + 1003n, limit: 10 };
    const spans = new SqliteReader(store.db).spans({ attrs: [], attrContains: [], page }).items;
    expect(spans.map((s) => s.attributes.env)).to.deep.equal(["canary", "qa-eu"]);
    expect(valueRows().map(([, value]) => value)).to.deep.equal(['"qa-eu"', '"canary"']);
  });

  it("gives back spans and log records through the reader, with filters and facets on dictionary values", () => {
    const routes = ["/users/{id}", "/orders", "/cart"];
    const spans = Array.from({ length: SAMPLE + 30 }, (_, i) => ({
      traceId: hexId(i + 1, 16),
      spanId: hexId(i + 1, 8),
      startNs: T0 + BigInt(i),
      attributes: { "http.route": routes[i % 3] as string, "request.id": `r${i}`, "http.status": 200 },
    }));
    store.writeTraces(traceRequest("api", spans));
    store.writeLogs(
      logsRequest(
        "api",
        spans.map((span, i) => ({ timeNs: span.startNs, body: `line ${i}`, attributes: span.attributes })),
      ),
    );
    expect(valueRows().map(([, value]) => value)).to.have.members(routes.map((route) => JSON.stringify(route)));
    const reader = new SqliteReader(store.db);
    const page = { fromNs: T0, toNs: T0 + 10_000n, limit: 1000 };
    const all = reader.spans({ attrs: [], attrContains: [], page }).items;
    expect(all.map((span) => span.attributes)).to.deep.equal(spans.map((span) => span.attributes).reverse());
    // Substring filters and facets by service read each row's value from its blob.
    const byRoute = reader.spans({ attrs: [], attrContains: [["http.route", "orders"]], page }).items;
    expect(byRoute).to.have.length(spans.filter((_, i) => i % 3 === 1).length);
    const logs = reader.logs({ attrs: [], attrContains: [["http.route", "cart"]], page }).items;
    expect(logs).to.have.length(spans.filter((_, i) => i % 3 === 2).length);
    const facet = reader.facets(
      { type: "traces", field: "attribute_values", key: "http.route" },
      { ...page, service: "api" },
      10,
    );
    expect(facet).to.deep.include.members(
      routes.map((route, r) => ({ value: route, count: spans.filter((_, i) => i % 3 === r).length })),
    );
  });
});

import { expect } from "chai";
import { describeAttributes, type PlainValue } from "../../../daemon/otlp/any-value.js";
import {
  attributesJson,
  attributeValueJson,
  codeAttributes,
  wholeText,
} from "../../../daemon/store/attribute-coding.js";

/** A dictionary like attr_keys: ids from 1 in order of first use, keys by their JSON text. */
function dictionary(firstId = 1) {
  const ids = new Map<string, number>();
  const jsonById = new Map<number, Buffer>();
  return {
    idOf: (keyJson: string): number => {
      const key = JSON.parse(keyJson) as string;
      if (JSON.stringify(key) !== keyJson) return -1;
      let id = ids.get(keyJson);
      if (id === undefined) {
        id = firstId + ids.size;
        ids.set(keyJson, id);
        jsonById.set(id, Buffer.from(keyJson, "utf8"));
      }
      return id;
    },
    jsonOf: (id: number) => jsonById.get(id),
  };
}

/** A value dictionary like attr_values: every value of the keys named goes in, ids from 1. */
function valueDictionary(codedKeyIds: number[]) {
  const ids = new Map<string, number>();
  const bytesById = new Map<number, Buffer>();
  return {
    idOf: (keyId: number, bytes: Buffer, from: number, to: number) => {
      if (!codedKeyIds.includes(keyId)) return -1;
      const value = Buffer.from(bytes.subarray(from, to));
      const text = value.toString("latin1");
      let id = ids.get(text);
      if (id === undefined) {
        id = ids.size + 1;
        ids.set(text, id);
        bytesById.set(id, value);
      }
      return id;
    },
    bytesOf: (id: number) => bytesById.get(id),
  };
}

const noValues = () => undefined;

/** The stored text of an attribute object, as the decoders make it. */
const stored = (object: Record<string, PlainValue>) => describeAttributes(object).json;

describe("attribute coding: a span's or log record's attributes with keys as dictionary ids", () => {
  const objects: Record<string, PlainValue>[] = [
    {},
    { "http.route": "/api/users/{id}", "http.response.status_code": 200, ok: true, missing: null },
    { ratio: 0.30000000000000004, tiny: 1.25e-7, negative: -42, big: "9007199254740993", nan: "NaN" },
    { list: [1, "two", [3, { four: 4 }]], map: { nested: { deeper: "x,y}z" } }, empty: [], none: {} },
    { 'quote"key': 'a "quoted" value', "back\\slash": "c:\\temp\\", newline: "line\nbreak\ttab\u0001" },
    { ключ: "значение", emoji: "🚀 launch", "\u2028": "separator", accents: "café" },
    JSON.parse('{"__proto__":"not a prototype","constructor":"plain"}') as Record<string, PlainValue>,
    { "2": "integer-like keys come first", b: "then the rest", "1": "in number order" },
    { long: "x".repeat(300), longer: "y".repeat(20_000) },
  ];

  it("gives back the same JSON text, byte for byte, for every kind of value", () => {
    const dict = dictionary();
    for (const object of objects) {
      const json = stored(object);
      const coded = codeAttributes(json, dict.idOf);
      expect(attributesJson(coded, dict.jsonOf, noValues), json).to.equal(json);
    }
  });

  /** Every attribute's value text as attributeValueJson finds it, by key id. */
  function valuesByKey(coded: Buffer, keyIds: number[], valueText: (id: number) => string | undefined = noValues) {
    return keyIds.map((id) => [id, attributeValueJson(coded, (keyId) => keyId === id, valueText)]);
  }

  it("tags each value with its kind and whether its key is the one after the key before, after a 0 byte", () => {
    const dict = dictionary(300);
    const coded = codeAttributes(stored({ method: "GET", retries: 3, ratio: 0.5, ok: true }), dict.idOf);
    // tag = payload * 8 + named * 4 + kind. Key 300 is 299 past the one after the 0 before the
    // first key (named: zigzag(299) = 598 follows as 0xd6 0x04); then keys 301, 302, 303, each
    // the one after the key before.
    // "GET": a string of 3 bytes without its quotes; 3: the integer 3, zigzag 6; 0.5 and true
    // kept as their text.
    expect([...coded]).to.deep.equal([
      0x00,
      3 * 8 + 4 + 1,
      0xd6,
      0x04,
      ...Buffer.from("GET"),
      6 * 8 + 2,
      3 * 8,
      ...Buffer.from("0.5"),
      4 * 8,
      ...Buffer.from("true"),
    ]);
    expect(valuesByKey(coded, [300, 301, 302, 303, 304])).to.deep.equal([
      [300, '"GET"'],
      [301, "3"],
      [302, "0.5"],
      [303, "true"],
      [304, undefined],
    ]);
  });

  it("writes a longer tag for a value of 16 bytes or more", () => {
    const dict = dictionary();
    const json = stored({ a: "é".repeat(100), b: "z" });
    const coded = codeAttributes(json, dict.idOf);
    // "é" is two bytes: 200 bytes without the quotes, a tag of 200 * 8 + 1 = 1601 (0xc1 0x0c).
    expect([...coded.subarray(0, 3)]).to.deep.equal([0x00, 0xc1, 0x0c]);
    expect(attributesJson(coded, dict.jsonOf, noValues)).to.equal(json);
  });

  it("keeps as integers only the numbers whose decimal text gives them back", () => {
    const dict = dictionary();
    const cases: [string, boolean][] = [
      ["0", true],
      ["-1", true],
      ["99999999999999", true],
      ["-99999999999999", true],
      ["100000000000000", false],
      ["-0", false],
      ["007", false],
      ["1e5", false],
      ["1.0", false],
      ["-", false],
      ["9007199254740993", false],
    ];
    for (const [number, integer] of cases) {
      const json = `{"n":${number}}`;
      const coded = codeAttributes(json, dict.idOf);
      expect(attributesJson(coded, dict.jsonOf, noValues), number).to.equal(json);
      expect(
        attributeValueJson(coded, (id) => id === 1, noValues),
        number,
      ).to.equal(number);
      // The kind is the tag's low two bits: 2 for an integer, 0 for text kept as it was.
      expect((coded[1] as number) & 3, number).to.equal(integer ? 2 : 0);
    }
  });

  it("names keys out of order, far apart or repeated by their difference", () => {
    const dict = dictionary();
    for (let i = 0; i < 200; i++) dict.idOf(JSON.stringify(`k${i}`));
    const json = '{"k150":"a","k3":1,"k4":2,"k199":true,"k0":null,"k0":"again","k7":-5}';
    const coded = codeAttributes(json, dict.idOf);
    expect(attributesJson(coded, dict.jsonOf, noValues)).to.equal(json);
    expect(valuesByKey(coded, [151, 4, 5, 200, 1, 8, 9])).to.deep.equal([
      [151, '"a"'],
      [4, "1"],
      [5, "2"],
      [200, "true"],
      [1, "null"],
      [8, "-5"],
      [9, undefined],
    ]);
  });

  it("reads the blobs schema versions 12 to 19 wrote: a key id, a length and the text, or 0 and a value id", () => {
    const dict = dictionary(300);
    dict.idOf('"method"');
    dict.idOf('"retries"');
    dict.idOf('"route"');
    const values = valueDictionary([7]);
    const route = Buffer.from('"/api/{id}"');
    const routeId = values.idOf(7, route, 0, route.length);
    // method (key 300, two varint bytes): 5 bytes of text; retries (301): 1 byte; route (302):
    // length 0, then its value id.
    const legacy = Buffer.from([
      ...[0xac, 0x02, 5, ...Buffer.from('"GET"')],
      ...[0xad, 0x02, 1, ...Buffer.from("3")],
      ...[0xae, 0x02, 0, routeId],
    ]);
    expect(attributesJson(legacy, dict.jsonOf, values.bytesOf)).to.equal(
      '{"method":"GET","retries":3,"route":"/api/{id}"}',
    );
    expect(valuesByKey(legacy, [300, 301, 302, 303], (id) => values.bytesOf(id)?.toString("utf8"))).to.deep.equal([
      [300, '"GET"'],
      [301, "3"],
      [302, '"/api/{id}"'],
      [303, undefined],
    ]);
  });

  it("codes an object without attributes as an empty blob", () => {
    expect(codeAttributes("{}", dictionary().idOf)).to.have.length(0);
    expect(attributesJson(Buffer.alloc(0), dictionary().jsonOf, noValues)).to.equal("{}");
  });

  it("keeps a text not in JSON.stringify's form whole, and gives it back as it was", () => {
    const dict = dictionary();
    for (const json of ['{ "a": 1 }', '{"\\u0041":1}', '{"a":1 }', "[1,2]", '{"a":"unterminated}']) {
      const coded = codeAttributes(json, dict.idOf);
      expect(wholeText(coded), json).to.equal(json);
      expect(attributesJson(coded, dict.jsonOf, noValues), json).to.equal(json);
    }
  });

  it("passes on a failure of the key dictionary instead of keeping the text whole", () => {
    const failing = () => {
      throw new Error("database or disk is full");
    };
    expect(() => codeAttributes('{"a":1}', failing)).to.throw("database or disk is full");
  });

  it("gives back the same text when values are in the value dictionary, for every kind of value", () => {
    const dict = dictionary();
    // Every key's values in the dictionary: ids 1 to 40 cover every key the objects use.
    const values = valueDictionary(Array.from({ length: 40 }, (_, i) => i + 1));
    for (const object of objects) {
      const json = stored(object);
      const coded = codeAttributes(json, dict.idOf, undefined, values.idOf);
      expect(attributesJson(coded, dict.jsonOf, values.bytesOf), json).to.equal(json);
    }
  });

  it("names a dictionary value by its id, and keeps short values and other keys' in the row", () => {
    const dict = dictionary();
    const values = valueDictionary([1]);
    const json = stored({ route: "/api/users/{id}", n: 7, other: "inline" });
    const first = codeAttributes(json, dict.idOf, undefined, values.idOf);
    const again = codeAttributes(json, dict.idOf, undefined, values.idOf);
    // route (key 1): a dictionary value, id 1; n (key 2): "7" has 1 byte, too short to be worth
    // an id, the integer 7 (zigzag 14, a tag of 114); other (key 3): its key's values stay in
    // rows, a string of 6 bytes.
    const expected = [0, 1 * 8 + 3, 14 * 8 + 2, 6 * 8 + 1, ...Buffer.from("inline")];
    expect([...first]).to.deep.equal(expected);
    expect([...again]).to.deep.equal(expected);
    expect(attributesJson(first, dict.jsonOf, values.bytesOf)).to.equal(json);
    expect(valuesByKey(first, [1, 2, 3], (id) => values.bytesOf(id)?.toString("utf8"))).to.deep.equal([
      [1, '"/api/users/{id}"'],
      [2, "7"],
      [3, '"inline"'],
    ]);
  });

  it("refuses to rebuild a text whose value the dictionary does not hold", () => {
    const dict = dictionary();
    const values = valueDictionary([1]);
    const coded = codeAttributes(stored({ a: "repeated" }), dict.idOf, undefined, values.idOf);
    expect(() => attributesJson(coded, dict.jsonOf, noValues)).to.throw(/value id 1 is not in the value dictionary/);
  });

  it("refuses to rebuild a text whose key the dictionary does not hold", () => {
    const dict = dictionary();
    const coded = codeAttributes(stored({ a: 1 }), dict.idOf);
    expect(() => attributesJson(coded, () => undefined, noValues)).to.throw(/key id 1 is not in the key dictionary/);
  });
});

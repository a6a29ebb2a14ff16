import { expect } from "chai";
import { describeAttributes, type PlainValue } from "../../../daemon/otlp/any-value.js";
import {
  attributesJson,
  codeAttributes,
  forEachAttribute,
  textOf,
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

  it("stores each key as its id, not its name, and each value's text as it was", () => {
    const dict = dictionary(300);
    const coded = codeAttributes(stored({ "http.request.method": "GET", retries: 3 }), dict.idOf);
    // id 300 (two varint bytes: 0xac 0x02), 5 bytes of value; id 301, 1 byte of value.
    expect([...coded]).to.deep.equal([0xac, 0x02, 5, ...Buffer.from('"GET"'), 0xad, 0x02, 1, ...Buffer.from("3")]);
    const visited: [number, string][] = [];
    forEachAttribute(coded, (id, valueId, start, end) => {
      expect(valueId).to.equal(-1);
      visited.push([id, textOf(coded, start, end)]);
      return false;
    });
    expect(visited).to.deep.equal([
      [300, '"GET"'],
      [301, "3"],
    ]);
  });

  it("writes a value of 128 bytes or more with a longer length", () => {
    const dict = dictionary();
    const json = stored({ a: "é".repeat(100), b: "z" });
    const coded = codeAttributes(json, dict.idOf);
    // "é" is two bytes: 202 bytes with the quotes, written as a two-byte varint.
    expect([...coded.subarray(0, 3)]).to.deep.equal([1, 0xca, 0x01]);
    expect(attributesJson(coded, dict.jsonOf, noValues)).to.equal(json);
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

  it("names a dictionary value by a 0 length and its id, and keeps short values and other keys' in the row", () => {
    const dict = dictionary();
    const values = valueDictionary([1]);
    const json = stored({ route: "/api/users/{id}", n: 7, other: "inline" });
    const first = codeAttributes(json, dict.idOf, undefined, values.idOf);
    const again = codeAttributes(json, dict.idOf, undefined, values.idOf);
    // route (key 1): length 0, value id 1; n (key 2): "7" has 1 byte, too short to be worth an id;
    // other (key 3): its key's values stay in rows.
    const expected = [1, 0, 1, 2, 1, ...Buffer.from("7"), 3, 8, ...Buffer.from('"inline"')];
    expect([...first]).to.deep.equal(expected);
    expect([...again]).to.deep.equal(expected);
    const visited: [number, string][] = [];
    forEachAttribute(first, (id, valueId, start, end) => {
      const value = valueId >= 0 ? values.bytesOf(valueId) : first.subarray(start, end);
      visited.push([id, value?.toString("utf8") ?? "?"]);
      return false;
    });
    expect(visited).to.deep.equal([
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

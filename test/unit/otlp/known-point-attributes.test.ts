import { expect } from "chai";
import { type AttributeRuns, KnownPointAttributes } from "../../../daemon/otlp/known-point-attributes.js";

/** A point as the reader leaves it after reading one run of `attributes`, sent as `bytes`. */
function readPoint(memo: KnownPointAttributes<AttributeRuns>, bytes: string, attributes: Record<string, string>) {
  const point: AttributeRuns = { attributes: {}, attributeRuns: 0, recalled: null, runKey: null, runUnits: 0 };
  const units = memo.recall(point, bytes);
  if (units < 0) {
    Object.assign(point.attributes, attributes);
    memo.read(point, Object.keys(attributes).length);
  }
  return { units, json: memo.attributesOf(point).json };
}

describe("point attributes known by their bytes", () => {
  it("recalls a set read before, at what reading it cost, and numbers each set once", () => {
    const memo = new KnownPointAttributes();
    expect(readPoint(memo, "AB", { a: "1", b: "2" })).to.deep.equal({ units: -1, json: '{"a":"1","b":"2"}' });
    expect(readPoint(memo, "AB", { a: "1", b: "2" })).to.deep.equal({ units: 2, json: '{"a":"1","b":"2"}' });
    // Other bytes for the same set: read, kept, and given the same number.
    expect(readPoint(memo, "BA", { b: "2", a: "1" })).to.deep.equal({ units: -1, json: '{"a":"1","b":"2"}' });
    expect(memo.size).to.equal(2);
    expect(memo.numberOf('{"a":"1","b":"2"}')).to.equal(1);
    readPoint(memo, "C", { c: "3" });
    expect(memo.numberOf('{"c":"3"}')).to.equal(2);
    expect(memo.numberOf('{"d":"4"}')).to.equal(0);
  });

  it("starts over past what it may hold, and numbers sets anew without reusing a number", () => {
    const memo = new KnownPointAttributes(4 * 1024);
    const numbers = new Set<number>();
    let most = 0;
    for (let i = 0; i < 200; i++) {
      const json = readPoint(memo, `run ${i}`, { key: `value ${i}` }).json;
      numbers.add(memo.numberOf(json));
      most = Math.max(most, memo.size);
    }
    // An entry is counted at least its fixed cost (256), so a 4 KiB memo holds at most 16.
    expect(most).to.be.at.most(16).and.above(1);
    expect(numbers.size).to.equal(200);
    expect(memo.numberOf(readPoint(memo, "run 0", { key: "value 0" }).json)).to.be.above(200);
  });
});

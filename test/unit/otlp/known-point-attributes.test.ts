import { expect } from "chai";
import type { ByteRun } from "../../../daemon/otlp/byte-runs.js";
import { type AttributeRuns, KnownPointAttributes } from "../../../daemon/otlp/known-point-attributes.js";

/** `text`'s bytes in the middle of a larger body, as the reader offers a run. */
function runOf(text: string): ByteRun {
  const body = Buffer.from(`--${text}--`, "latin1");
  return { body, view: new DataView(body.buffer, body.byteOffset, body.byteLength), start: 2, end: 2 + text.length };
}

/** A point as the reader leaves it after reading one run of `attributes`, sent as `bytes`. */
function readPoint(memo: KnownPointAttributes<AttributeRuns>, bytes: string, attributes: Record<string, string>) {
  const point: AttributeRuns = {
    attributes: {},
    attributeRuns: 0,
    recalled: null,
    runBytes: null,
    runHash: 0,
    runUnits: 0,
    set: 0,
  };
  const units = memo.recall(point, runOf(bytes));
  if (units < 0) {
    Object.assign(point.attributes, attributes);
    memo.read(point, Object.keys(attributes).length);
  }
  return { units, json: memo.attributesOf(point).json, set: point.set };
}

describe("point attributes known by their bytes", () => {
  it("recalls a set read before, at what reading it cost, and numbers each set once", () => {
    const memo = new KnownPointAttributes();
    const ab = '{"a":"1","b":"2"}';
    expect(readPoint(memo, "AB", { a: "1", b: "2" })).to.deep.equal({ units: -1, json: ab, set: 1 });
    expect(readPoint(memo, "AB", { a: "1", b: "2" })).to.deep.equal({ units: 2, json: ab, set: 1 });
    // Other bytes for the same set: read, kept, and given the same number.
    expect(readPoint(memo, "BA", { b: "2", a: "1" })).to.deep.equal({ units: -1, json: ab, set: 1 });
    expect(readPoint(memo, "BA", { b: "2", a: "1" })).to.deep.equal({ units: 2, json: ab, set: 1 });
    expect(memo.size).to.equal(2);
    expect(readPoint(memo, "C", { c: "3" }).set).to.equal(2);
    // Bytes that begin like a kept run's are another run.
    expect(readPoint(memo, "ABC", { a: "1", b: "2", c: "3" })).to.include({ units: -1, set: 3 });
  });

  it("starts over past what it may hold, and numbers sets anew without reusing a number", () => {
    const memo = new KnownPointAttributes(4 * 1024);
    const numbers = new Set<number>();
    let most = 0;
    for (let i = 0; i < 200; i++) {
      numbers.add(readPoint(memo, `run ${i}`, { key: `value ${i}` }).set);
      most = Math.max(most, memo.size);
    }
    // An entry is counted at least its fixed cost (256), so a 4 KiB memo holds at most 16.
    expect(most).to.be.at.most(16).and.above(1);
    expect(numbers.size).to.equal(200);
    expect(readPoint(memo, "run 0", { key: "value 0" }))
      .to.include({ units: -1 })
      .and.have.property("set")
      .above(200);
  });
});

import { expect } from "chai";
import { type ByteRun, hashRun } from "../../../daemon/otlp/byte-runs.js";
import { type AttributeRuns, KnownPointAttributes } from "../../../daemon/otlp/known-point-attributes.js";

/** `bytes` in the middle of a larger body, as the reader offers a run. */
function runOf(bytes: string | Buffer): ByteRun {
  const run = typeof bytes === "string" ? Buffer.from(bytes, "latin1") : bytes;
  const body = Buffer.concat([Buffer.from("--"), run, Buffer.from("--")]);
  return { body, view: new DataView(body.buffer, body.byteOffset, body.byteLength), start: 2, end: 2 + run.length };
}

/** A point as the reader leaves it after reading one run of `attributes`, sent as `bytes`. */
function readPoint(
  memo: KnownPointAttributes<AttributeRuns>,
  bytes: string | Buffer,
  attributes: Record<string, string>,
) {
  const point: AttributeRuns = {
    attributes: {},
    attributeRuns: 0,
    recalled: null,
    run: null,
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

  it("reads a set each time when too many kept runs share its bytes' hash, numbering it only when its text is", () => {
    // Eight-byte runs sharing hashRun's value: each second word undoes its first's mixing, so
    // the state after both is the same (hashRun's steps: h ^= word, h *= 0x85ebca6b, h ^= h >>> 13).
    const colliding = (first: number) => {
      let h = (0x9e3779b9 ^ 8) | 0;
      h = Math.imul(h ^ first, 0x85ebca6b);
      h ^= h >>> 13;
      const bytes = Buffer.alloc(8);
      bytes.writeUInt32LE(first, 0);
      bytes.writeUInt32LE((h ^ 0x1234) >>> 0, 4);
      return bytes;
    };
    const runs = [1, 2, 3, 4, 5, 6].map(colliding);
    expect(new Set(runs.map((bytes) => hashRun(runOf(bytes)))).size, "the runs' premise: one hash").to.equal(1);
    const memo = new KnownPointAttributes();
    const sets = runs.slice(0, 4).map((bytes, i) => readPoint(memo, bytes, { k: String(i) }).set);
    expect(sets).to.deep.equal([1, 2, 3, 4]);
    // A fifth run under that hash is not kept: read again each time, without a number used up.
    for (let i = 0; i < 3; i++)
      expect(readPoint(memo, runs[4] as Buffer, { k: "4" })).to.include({ units: -1, set: 0 });
    expect(readPoint(memo, "fresh", { f: "1" }).set).to.equal(5);
    // A refused run whose text a kept run has carries that run's number.
    expect(readPoint(memo, runs[5] as Buffer, { k: "0" })).to.include({ units: -1, set: 1 });
    expect(memo.size).to.equal(5);
  });

  it("starts over past what it may hold, and numbers sets anew without reusing a number", () => {
    const memo = new KnownPointAttributes(4 * 1024);
    const numbers = new Set<number>();
    let most = 0;
    for (let i = 0; i < 200; i++) {
      numbers.add(readPoint(memo, `run ${i}`, { key: `value ${i}` }).set);
      most = Math.max(most, memo.size);
    }
    // An entry is counted at least its fixed cost (560), so a 4 KiB memo holds at most 7.
    expect(most).to.be.at.most(7).and.above(1);
    expect(numbers.size).to.equal(200);
    expect(readPoint(memo, "run 0", { key: "value 0" }))
      .to.include({ units: -1 })
      .and.have.property("set")
      .above(200);
  });
});

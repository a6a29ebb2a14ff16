import { expect } from "chai";
import {
  type PackEntry,
  packEntries,
  packedFloats,
  packedTexts,
  packedTimes,
  unpackEntries,
} from "../../../daemon/store/metric-slot-packs.js";

const entry = (over: Partial<Record<number, unknown>>): PackEntry => {
  const base: PackEntry = [1, 6, 10n, 20n, null, null, null, null, 4, null, 0, null, null];
  for (const [i, value] of Object.entries(over)) (base as unknown[])[Number(i)] = value;
  return base;
};

describe("metric slot packs", () => {
  it("gives back every entry as its row held it: nulls, times past 2^53, infinities, texts", () => {
    const entries: PackEntry[] = [
      entry({}),
      [
        7,
        90,
        1_700_000_000_123_456_789n,
        9_223_372_036_854_775_807n,
        -0.5,
        Number.NEGATIVE_INFINITY,
        Number.POSITIVE_INFINITY,
        1e308,
        0,
        2.25,
        3,
        '{"bounds":[0,5],"counts":[1,2,3]}',
        '["0af7651916cd43dd8448eb211c80319c","é"]',
      ],
      entry({ 0: 9, 12: "[]" }),
    ];
    expect(unpackEntries(packEntries(entries))).to.deep.equal(entries);
  });

  it("stores a column every value of which is NULL as NULL, and resets that are all 0", () => {
    const values = packEntries([entry({ 0: 3, 8: 1.5 }), entry({ 0: 4, 8: null })]);
    expect(values.value_sum).to.equal(null);
    expect(values.resets).to.equal(null);
    expect(values.buckets).to.equal(null);
    expect(values.exemplars).to.equal(null);
    expect([...(packedFloats(values.increase ?? null) ?? [])]).to.deep.equal([1.5, Number.NaN]);
    expect([...(packedFloats(values.series_ids ?? null) ?? [])]).to.deep.equal([3, 4]);
    expect([...packedTimes(values.last_ns as Buffer)]).to.deep.equal([20n, 20n]);
    expect([...packedTexts(values.exemplars ?? null, 2)]).to.deep.equal([null, null]);
  });

  it("reads a column that does not start on an 8-byte boundary", () => {
    const values = packEntries([entry({ 8: 1.25 }), entry({ 0: 2, 8: -3 })]);
    const shifted = Buffer.alloc((values.increase as Buffer).length + 1);
    (values.increase as Buffer).copy(shifted, 1);
    expect([...(packedFloats(shifted.subarray(1)) ?? [])]).to.deep.equal([1.25, -3]);
  });

  it("keeps an empty slot as an empty pack, and takes integer columns given as bigint", () => {
    expect(unpackEntries(packEntries([]))).to.deep.equal([]);
    const [only] = unpackEntries(packEntries([entry({ 0: 12n, 1: 6n, 10: 2n })]));
    expect(only?.slice(0, 3)).to.deep.equal([12, 6, 10n]);
    expect(only?.[10]).to.equal(2);
  });

  it("keeps buckets and exemplars apart, so a reader of exemplars copies no bucket text", () => {
    const values = packEntries([entry({ 11: '{"bounds":[1],"counts":[2,3]}' }), entry({ 0: 2, 12: '["ab"]' })]);
    expect([...packedTexts(values.buckets ?? null, 2)]).to.deep.equal(['{"bounds":[1],"counts":[2,3]}', null]);
    expect([...packedTexts(values.exemplars ?? null, 2)]).to.deep.equal([null, '["ab"]']);
    expect(() => [...packedTexts((values.exemplars as Buffer).subarray(0, 6), 2)]).to.throw("end before its 2 series");
  });

  it("refuses a pack whose columns disagree on the number of series", () => {
    const values = packEntries([entry({}), entry({ 0: 2 })]);
    expect(() => unpackEntries({ ...values, points: (values.points as Buffer).subarray(8) })).to.throw(
      "points has 1 values for 2 series",
    );
    expect(() => unpackEntries({ ...values, series_ids: null })).to.throw("without its series");
  });
});

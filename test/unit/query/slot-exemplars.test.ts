import { expect } from "chai";
import { MAX_EXEMPLAR_ROWS, rareParts, SlotExemplars } from "../../../daemon/query/metrics/slot-exemplars.js";

describe("SlotExemplars", () => {
  it("hands the rows back newest first, ties in reading order, and starts empty again", () => {
    const rows = new SlotExemplars();
    rows.add(0, '100 ["a"]');
    rows.add(1, '300 ["b","c"]');
    rows.add(2, '300 ["e"]');
    expect(rows.take()).to.deep.equal([
      [1, '["b","c"]', 300n],
      [2, '["e"]', 300n],
      [0, '["a"]', 100n],
    ]);
    expect(rows.take()).to.deep.equal([]);
  });

  it("leaves rows outside the scope out before the cap, so newer ones cannot crowd the scope's out", () => {
    const rows = new SlotExemplars();
    rows.add(0, '100 ["a"]');
    for (let i = 0; i < MAX_EXEMPLAR_ROWS; i++) rows.add(null, `${200 + i} ["x${i}"]`);
    expect(rows.take()).to.deep.equal([[0, '["a"]', 100n]]);
  });

  it("orders nanosecond times beyond a double's precision exactly, and keeps the newest rows only", () => {
    const rows = new SlotExemplars();
    const base = 1_700_000_000_000_000_000n;
    for (let i = 0; i <= MAX_EXEMPLAR_ROWS; i++) rows.add(i, `${base + BigInt(i)} ["t${i}"]`);
    const taken = rows.take();
    expect(taken).to.have.length(MAX_EXEMPLAR_ROWS);
    expect(taken[0]).to.deep.equal([MAX_EXEMPLAR_ROWS, `["t${MAX_EXEMPLAR_ROWS}"]`, base + BigInt(MAX_EXEMPLAR_ROWS)]);
    expect(taken[1]).to.deep.equal([
      MAX_EXEMPLAR_ROWS - 1,
      `["t${MAX_EXEMPLAR_ROWS - 1}"]`,
      base + BigInt(MAX_EXEMPLAR_ROWS - 1),
    ]);
    expect(taken.some(([gid]) => gid === 0)).to.equal(false);
  });

  it("reads a row's resets, and its exemplars only when it has some", () => {
    expect(rareParts('2 1700000000000000001 ["a"]')).to.deep.equal({
      resets: 2,
      exemplar: '1700000000000000001 ["a"]',
    });
    expect(rareParts("1 1700000000000000001 ")).to.deep.equal({ resets: 1, exemplar: null });
    expect(rareParts('0 5 ["b"]')).to.deep.equal({ resets: 0, exemplar: '5 ["b"]' });
  });
});

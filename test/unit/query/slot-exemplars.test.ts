import { expect } from "chai";
import { MAX_EXEMPLAR_ROWS, SlotExemplars } from "../../../daemon/query/metrics/slot-exemplars.js";

describe("SlotExemplars", () => {
  it("hands the rows back newest first, ties in reading order, and starts empty again", () => {
    const rows = new SlotExemplars();
    rows.add(0, '100 ["a"]');
    rows.add(1, '300 ["b","c"]');
    rows.add(null, '200 ["d"]');
    rows.add(2, '300 ["e"]');
    expect(rows.take()).to.deep.equal([
      [1, '["b","c"]'],
      [2, '["e"]'],
      [null, '["d"]'],
      [0, '["a"]'],
    ]);
    expect(rows.take()).to.deep.equal([]);
  });

  it("orders nanosecond times beyond a double's precision exactly, and keeps the newest rows only", () => {
    const rows = new SlotExemplars();
    const base = 1_700_000_000_000_000_000n;
    for (let i = 0; i <= MAX_EXEMPLAR_ROWS; i++) rows.add(i, `${base + BigInt(i)} ["t${i}"]`);
    const taken = rows.take();
    expect(taken).to.have.length(MAX_EXEMPLAR_ROWS);
    expect(taken[0]).to.deep.equal([MAX_EXEMPLAR_ROWS, `["t${MAX_EXEMPLAR_ROWS}"]`]);
    expect(taken[1]).to.deep.equal([MAX_EXEMPLAR_ROWS - 1, `["t${MAX_EXEMPLAR_ROWS - 1}"]`]);
    expect(taken.some(([gid]) => gid === 0)).to.equal(false);
  });
});

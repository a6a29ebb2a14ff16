import Database from "better-sqlite3";
import { expect } from "chai";
import {
  decodePostingRows,
  encodePostingRows,
  postingRowCount,
  registerPostingFunctions,
} from "../../../daemon/store/posting-rows.js";

describe("posting rows: an entry's row ids as varint differences", () => {
  const cases: number[][] = [
    [7],
    [1, 2, 3, 4],
    [100, 227, 228, 356, 16_740, 16_741],
    [1, 2 ** 31, 2 ** 32 + 5, 2 ** 40, Number.MAX_SAFE_INTEGER],
  ];

  it("gives back the same ids, the first from first_row", () => {
    for (const ids of cases) {
      const rows = encodePostingRows(ids);
      expect(decodePostingRows(rows, ids[0] as number), JSON.stringify(ids)).to.deep.equal(ids);
      expect(postingRowCount(rows)).to.equal(ids.length);
    }
  });

  it("takes one byte a difference under 128, and nothing for an entry of one row", () => {
    expect(encodePostingRows([42])).to.deep.equal(Buffer.alloc(0));
    expect(encodePostingRows([10, 11, 138])).to.deep.equal(Buffer.from([1, 127]));
    // 128 = 0b1_0000000: low seven bits first, with the continuation bit.
    expect(encodePostingRows([10, 138])).to.deep.equal(Buffer.from([0x80, 0x01]));
  });

  it("refuses ids that do not ascend, and a blob that ends inside a number", () => {
    expect(() => encodePostingRows([5, 5])).to.throw(RangeError, /must ascend/);
    expect(() => encodePostingRows([5, 3])).to.throw(RangeError, /must ascend/);
    expect(() => decodePostingRows(Buffer.from([0x80]), 1)).to.throw(RangeError, /inside a number/);
  });

  it("reads in SQL as a JSON array for json_each, and as a count", () => {
    const db = new Database(":memory:");
    try {
      registerPostingFunctions(db);
      const ids = [100, 227, 228, 2 ** 40];
      const rows = encodePostingRows(ids);
      expect(db.prepare("SELECT obs_posting_rows(?, ?)").pluck().get(rows, 100)).to.equal(JSON.stringify(ids));
      expect(
        db.prepare("SELECT value FROM json_each(obs_posting_rows(?, ?))").pluck().all(Buffer.alloc(0), 9),
      ).to.deep.equal([9]);
      expect(db.prepare("SELECT obs_posting_count(?)").pluck().get(rows)).to.equal(4);
    } finally {
      db.close();
    }
  });
});

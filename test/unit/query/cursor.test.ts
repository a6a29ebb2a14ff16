import { expect } from "chai";
import { CursorError, decodeCursor, encodeCursor, filterFingerprint } from "../../../shared/cursor.js";

describe("page cursors", () => {
  const filters = filterFingerprint({ service: "api", status: "error", lookback: "15m" });
  const state = {
    filters,
    fromNs: 1n,
    toNs: 1_700_000_000_000_000_000n,
    afterNs: 1_699_999_999_123_456_789n,
    afterId: "ab01",
  };

  it("round-trips the window and the last sort key exactly", () => {
    const token = encodeCursor(state);
    expect(token).to.match(/^[A-Za-z0-9_-]+$/);
    expect(decodeCursor(token, filters)).to.deep.equal(state);
  });

  it("refuses a cursor reused with other filters", () => {
    const token = encodeCursor(state);
    const other = filterFingerprint({ service: "db", status: "error", lookback: "15m" });
    expect(() => decodeCursor(token, other)).to.throw(CursorError, /other filters/);
  });

  it("fingerprints filters independently of key order", () => {
    expect(filterFingerprint({ a: 1, b: "x" })).to.equal(filterFingerprint({ b: "x", a: 1 }));
    expect(filterFingerprint({ a: 1 })).not.to.equal(filterFingerprint({ a: 2 }));
  });

  it("refuses tokens that are not cursors", () => {
    for (const token of ["", "abc", "bm90IGpzb24", Buffer.from("[2]").toString("base64url")]) {
      expect(() => decodeCursor(token, filters), token).to.throw(CursorError);
    }
  });
});

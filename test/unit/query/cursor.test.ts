import { createHmac, randomBytes } from "node:crypto";
import { expect } from "chai";
import { CursorError, decodeCursor, encodeCursor, filterFingerprint } from "../../../shared/cursor.js";

describe("page cursors", () => {
  const key = randomBytes(32);
  const filters = filterFingerprint({ service: "api", status: "error", lookback: "15m" });
  const state = {
    filters,
    fromNs: 1n,
    toNs: 1_700_000_000_000_000_000n,
    afterNs: 1_699_999_999_123_456_789n,
    afterId: "ab01",
  };

  /** A cursor whose payload was edited and signed again with `signingKey`. */
  function resigned(edit: (payload: unknown[]) => void, signingKey = key): string {
    const payload = JSON.parse(Buffer.from(encodeCursor(state, key).split(".")[0] as string, "base64url").toString());
    edit(payload);
    const body = Buffer.from(JSON.stringify(payload)).toString("base64url");
    const signature = createHmac("sha256", signingKey).update(body).digest().subarray(0, 16).toString("base64url");
    return `${body}.${signature}`;
  }

  it("round-trips the window and the last sort key exactly", () => {
    const token = encodeCursor(state, key);
    expect(token).to.match(/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/);
    expect(decodeCursor(token, filters, key)).to.deep.equal(state);
  });

  it("refuses a cursor reused with other filters", () => {
    const token = encodeCursor(state, key);
    const other = filterFingerprint({ service: "db", status: "error", lookback: "15m" });
    expect(() => decodeCursor(token, other, key)).to.throw(CursorError, /other filters/);
  });

  it("refuses a cursor signed with another store's key, or edited by hand", () => {
    const token = encodeCursor(state, key);
    expect(() => decodeCursor(token, filters, randomBytes(32))).to.throw(CursorError, /not issued by this collector/);
    const [body, signature] = token.split(".") as [string, string];
    const payload = JSON.parse(Buffer.from(body, "base64url").toString());
    payload[5] = "not-a-number";
    const edited = `${Buffer.from(JSON.stringify(payload)).toString("base64url")}.${signature}`;
    expect(() => decodeCursor(edited, filters, key)).to.throw(CursorError, /not issued by this collector/);
    expect(() => decodeCursor(body, filters, key)).to.throw(CursorError, /not issued by this collector/);
  });

  it("refuses fields out of range even under a valid signature", () => {
    const edits: ((p: unknown[]) => void)[] = [
      (p) => {
        p[2] = "99999999999999999999999";
      },
      (p) => {
        p[3] = 12.5;
      },
      (p) => {
        p[4] = "1e5";
      },
      (p) => {
        p[5] = "not an id";
      },
    ];
    for (const edit of edits)
      expect(() => decodeCursor(resigned(edit), filters, key)).to.throw(CursorError, /invalid cursor/);
  });

  it("fingerprints filters independently of key order", () => {
    expect(filterFingerprint({ a: 1, b: "x" })).to.equal(filterFingerprint({ b: "x", a: 1 }));
    expect(filterFingerprint({ a: 1 })).not.to.equal(filterFingerprint({ a: 2 }));
  });

  it("refuses tokens that are not cursors", () => {
    for (const token of ["", "abc", "bm90IGpzb24", "a.b.c", Buffer.from("[2]").toString("base64url")]) {
      expect(() => decodeCursor(token, filters, key), token).to.throw(CursorError);
    }
  });
});

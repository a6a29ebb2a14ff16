import { expect } from "chai";
import {
  budgetOf,
  cutLongStrings,
  cutString,
  DEFAULT_MAX_BYTES,
  fitItems,
  jsonBytes,
  MAX_MAX_BYTES,
  pageWithinBudget,
} from "../../../daemon/mcp/budget.js";

describe("MCP byte budgets", () => {
  it("takes the asked max_bytes within its bounds", () => {
    expect(budgetOf(undefined)).to.equal(DEFAULT_MAX_BYTES);
    expect(budgetOf(2048)).to.equal(2048);
    expect(budgetOf(10)).to.equal(1024);
    expect(budgetOf(10 ** 9)).to.equal(MAX_MAX_BYTES);
  });

  it("cuts a long string with a marker that says how much is missing", () => {
    expect(cutString("abc", 5)).to.equal("abc");
    expect(cutString("abcdefgh", 5)).to.equal("abcde…[+3 chars]");
    expect(cutLongStrings({ a: ["x".repeat(10)], b: 3, c: null }, 4)).to.deep.equal({
      a: ["xxxx…[+6 chars]"],
      b: 3,
      c: null,
    });
  });

  it("never splits a character made of two UTF-16 units, and cuts long keys too", () => {
    const emoji = "\u{1F600}";
    const cut = cutString(`a${emoji.repeat(10)}`, 4);
    expect(cut).to.equal(`a${emoji}…[+18 chars]`);
    const loneHalf = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
    expect(cut).not.to.match(loneHalf);
    expect(cutString(emoji.repeat(10), 3)).not.to.match(loneHalf);
    const key = "k".repeat(30);
    expect(cutLongStrings({ [key]: "v" }, 10)).to.deep.equal({ "kkkkkkkkkk…[+20 chars]": "v" });
  });

  it("keeps the longest prefix of items that fits, and says when any were left out", () => {
    const items = Array.from({ length: 100 }, (_, i) => ({ i, pad: "p".repeat(50) }));
    const build = (kept: readonly object[], truncated: boolean) => ({ items: kept, truncated });
    const { answer, kept } = fitItems(items, 1000, build);
    expect(jsonBytes(answer)).to.be.at.most(1000);
    expect(jsonBytes(build(items.slice(0, kept + 1), true))).to.be.greaterThan(1000);
    expect(answer.truncated).to.equal(true);
    expect(fitItems(items.slice(0, 2), 1000, build)).to.deep.include({ kept: 2 });
    expect(fitItems(items.slice(0, 2), 1000, build).answer.truncated).to.equal(false);
  });

  it("re-asks a cursored list for the kept count, so the continuation starts after the last item shown", async () => {
    const all = Array.from({ length: 50 }, (_, i) => ({ i, pad: "p".repeat(40) }));
    const asked: [number, string | undefined][] = [];
    const fetch = async (limit: number, cursor?: string) => {
      asked.push([limit, cursor]);
      const start = cursor === undefined ? 0 : Number(cursor);
      const data = all.slice(start, start + limit);
      return { data, meta: { nextCursor: start + limit < all.length ? String(start + limit) : null } };
    };
    const seen: number[] = [];
    let cursor: string | undefined;
    for (let call = 0; call < 100; call++) {
      const { answer } = await pageWithinBudget({
        fetch,
        limit: 20,
        ...(cursor === undefined ? {} : { cursor }),
        maxBytes: 1024,
        build: (items, tail) => ({ items: [...items], ...tail, next: [] }),
        continueWith: (next) => ({ tool: "t", arguments: { cursor: next }, why: "the rest" }),
      });
      expect(jsonBytes(answer)).to.be.at.most(1024);
      seen.push(...answer.items.map((item) => item.i));
      if (!answer.truncated) break;
      cursor = answer.continuation?.arguments.cursor as string;
    }
    expect(seen).to.deep.equal(all.map((item) => item.i));
    expect(asked.some(([limit]) => limit < 20)).to.equal(true);
  });

  it("stays within the budget when the real cursor is longer than the stand-in it measured with", async () => {
    // Every item fits the limit, not the bytes, so the first page has no cursor to measure
    // with; the collector's cursor for the cut page is longer than the stand-in.
    const items = Array.from({ length: 20 }, (_, i) => ({ i, pad: "p".repeat(40) }));
    const fetch = async (limit: number, cursor?: string) => {
      const from = cursor === undefined ? 0 : Number(cursor.split(":")[0]);
      const data = items.slice(from, from + limit);
      const end = from + data.length;
      return { data, meta: { nextCursor: end < items.length ? `${end}:${"c".repeat(400)}` : null } };
    };
    const seen: number[] = [];
    let cursor: string | undefined;
    for (let call = 0; call < 20; call++) {
      const { answer } = await pageWithinBudget({
        fetch,
        limit: 100,
        ...(cursor === undefined ? {} : { cursor }),
        maxBytes: 1024,
        build: (kept, tail) => ({ items: [...kept], ...tail, next: [] }),
        continueWith: (next) => ({ tool: "t", arguments: { cursor: next }, why: "the rest" }),
      });
      expect(jsonBytes(answer)).to.be.at.most(1024);
      seen.push(...answer.items.map((item) => item.i));
      if (!answer.truncated) break;
      cursor = answer.continuation?.arguments.cursor as string;
    }
    expect(seen).to.deep.equal(items.map((item) => item.i));
  });
});

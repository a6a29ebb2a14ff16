import { expect } from "chai";
import { type ApiPage, jsonBytes, pageWithinBudget } from "../../../daemon/mcp/budget.js";
import type { AnswerTail } from "../../../daemon/mcp/mcp-tool.js";
import { pageWithinMaxBytes } from "../../../daemon/mcp/tools/paged-answer.js";

/** A list of `count` items paged with cursors as long as the collector's (about 150 characters). */
function longCursorList(count: number) {
  const items = Array.from({ length: count }, (_, i) => ({ i, pad: "p".repeat(40) }));
  return async (limit: number, cursor?: string): Promise<ApiPage<(typeof items)[number]>> => {
    const from = cursor === undefined ? 0 : Number(cursor.split(":")[0]);
    const data = items.slice(from, from + limit);
    const end = from + data.length;
    return { data, meta: { nextCursor: end < items.length ? `${end}:${"c".repeat(150)}` : null } };
  };
}

describe("MCP pages held to max_bytes", () => {
  const options = (fetch: ReturnType<typeof longCursorList>, cursor?: string) => ({
    fetch,
    limit: 100,
    ...(cursor === undefined ? {} : { cursor }),
    maxBytes: 1024,
    build: (items: readonly { i: number }[], tail: Pick<AnswerTail, "truncated" | "continuation">) => ({
      items: [...items],
      ...tail,
      next: [],
    }),
    continueWith: (next: string | undefined) => ({ tool: "t", arguments: { cursor: next }, why: "the rest" }),
  });

  it("stays within the budget where the first page had no cursor to measure with", async () => {
    // Every item fits the limit, not the bytes: the cut page's real cursor is longer than the stand-in.
    const fetch = longCursorList(20);
    const plain = await pageWithinBudget(options(fetch));
    const held = await pageWithinMaxBytes(options(fetch));
    expect(jsonBytes(plain.answer), "the overflow this guards against").to.be.greaterThan(1024);
    expect(jsonBytes(held.answer)).to.be.at.most(1024);
    expect(held.kept).to.equal(plain.kept - 1);
  });

  it("pages through every item within the budget", async () => {
    const fetch = longCursorList(20);
    const seen: number[] = [];
    let cursor: string | undefined;
    for (let page = 0; page < 20; page++) {
      const { answer } = await pageWithinMaxBytes(options(fetch, cursor));
      expect(jsonBytes(answer)).to.be.at.most(1024);
      seen.push(...answer.items.map((item) => item.i));
      if (!answer.truncated) break;
      cursor = answer.continuation?.arguments.cursor as string;
    }
    expect(seen).to.deep.equal(Array.from({ length: 20 }, (_, i) => i));
  });
});

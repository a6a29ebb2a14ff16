import { expect } from "chai";
import { firstOfEach } from "../../../../client/web/live/paged-items.js";

describe("paged list rows", () => {
  it("shows a trace a later page lists again (its root arrived between pages) once, at its first place", () => {
    const pages = [
      [{ traceId: "a" }, { traceId: "b" }],
      [{ traceId: "c" }, { traceId: "a" }],
    ];
    expect(firstOfEach(pages.flat(), (trace) => trace.traceId).map((trace) => trace.traceId)).to.deep.equal([
      "a",
      "b",
      "c",
    ]);
    expect(firstOfEach([], (trace: { traceId: string }) => trace.traceId)).to.deep.equal([]);
  });
});

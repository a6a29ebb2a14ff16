import { expect } from "chai";
import { criticalPath, type TimedSpan } from "../../../../shared/trace/critical-path.js";

const MS = 1_000_000n;

/** A span over [start, end] milliseconds. */
function span(spanId: string, parentSpanId: string | null, start: number, end: number): TimedSpan {
  return {
    spanId,
    parentSpanId,
    startTimeUnixNano: (BigInt(start) * MS).toString(),
    endTimeUnixNano: (BigInt(end) * MS).toString(),
  };
}

/** The path as [span id, start ms, end ms] stretches. */
function pathOf(spans: TimedSpan[]): [string, number, number][] {
  return criticalPath(spans).sections.map((s) => [
    spans[s.index]?.spanId as string,
    Number(s.startNs / MS),
    Number(s.endNs / MS),
  ]);
}

describe("critical path walk", () => {
  it("follows the last finishing child, then walks back to the child ending before it", () => {
    const spans = [span("r", null, 0, 100), span("a", "r", 10, 40), span("b", "r", 50, 90)];
    expect(pathOf(spans)).to.deep.equal([
      ["r", 0, 10],
      ["a", 10, 40],
      ["r", 40, 50],
      ["b", 50, 90],
      ["r", 90, 100],
    ]);
  });

  it("leaves out an overlapping child that ends after the one walked back from starts", () => {
    const spans = [span("r", null, 0, 100), span("a", "r", 10, 80), span("b", "r", 20, 60), span("c", "a", 30, 70)];
    expect(pathOf(spans)).to.deep.equal([
      ["r", 0, 10],
      ["a", 10, 30],
      ["c", 30, 70],
      ["a", 70, 80],
      ["r", 80, 100],
    ]);
  });

  it("cuts a child ending after its parent at the parent's end, and one starting before at its start", () => {
    expect(pathOf([span("r", null, 0, 100), span("a", "r", 50, 150)])).to.deep.equal([
      ["r", 0, 50],
      ["a", 50, 100],
    ]);
    expect(pathOf([span("r", null, 10, 100), span("a", "r", 0, 30)])).to.deep.equal([
      ["a", 10, 30],
      ["r", 30, 100],
    ]);
  });

  it("leaves async children (starting after their parent ended) and their subtrees off the path", () => {
    const spans = [
      span("r", null, 0, 100),
      span("a", "r", 20, 30),
      span("late", "r", 120, 200),
      span("late-child", "late", 130, 190),
    ];
    expect(pathOf(spans)).to.deep.equal([
      ["r", 0, 20],
      ["a", 20, 30],
      ["r", 30, 100],
    ]);
  });

  it("walks the longest of several roots (orphans included)", () => {
    const spans = [
      span("r1", null, 0, 50),
      span("r2", null, 10, 200),
      span("o", "missing", 0, 20),
      span("c", "r2", 100, 150),
    ];
    expect(criticalPath(spans).root).to.equal(1);
    expect(pathOf(spans)).to.deep.equal([
      ["r2", 10, 100],
      ["c", 100, 150],
      ["r2", 150, 200],
    ]);
  });

  it("sums to the root's duration on a 20,000-deep chain, without recursion", () => {
    const depth = 20_000;
    const spans = Array.from({ length: depth }, (_, i) =>
      span(`s${i}`, i === 0 ? null : `s${i - 1}`, i, 2 * depth - i),
    );
    const { sections } = criticalPath(spans);
    expect(sections).to.have.length(2 * depth - 1);
    expect(sections.reduce((sum, s) => sum + (s.endNs - s.startNs), 0n)).to.equal(BigInt(2 * depth) * MS);
    expect(spans[(sections[depth - 1] as { index: number }).index]?.spanId).to.equal(`s${depth - 1}`);
  });

  it("answers nothing for no spans", () => {
    expect(criticalPath([])).to.deep.equal({ root: -1, sections: [] });
  });

  it("walks a trace whose spans name each other as parents once, and ends", () => {
    // A broken sender: A's parent is B and B's is A, so neither is a root; A, starting first, is walked.
    expect(pathOf([span("a", "b", 0, 100), span("b", "a", 10, 50)])).to.deep.equal([
      ["a", 0, 10],
      ["b", 10, 50],
      ["a", 50, 100],
    ]);
    // A cycle of three with a child, longer than the real root beside it.
    const spans = [
      span("r", null, 0, 10),
      span("a", "c", 0, 100),
      span("b", "a", 10, 60),
      span("c", "b", 20, 40),
      span("x", "c", 25, 30),
    ];
    expect(pathOf(spans)).to.deep.equal([
      ["a", 0, 10],
      ["b", 10, 20],
      ["c", 20, 25],
      ["x", 25, 30],
      ["c", 30, 40],
      ["b", 40, 60],
      ["a", 60, 100],
    ]);
  });
});

import { expect } from "chai";
import { tickStep, timeTicks } from "../../../../../client/web/views/trace/time-ticks.js";
import { treeKeyAction } from "../../../../../client/web/views/trace/tree-keys.js";
import { scrollToReveal, virtualWindow } from "../../../../../client/web/views/trace/virtual-window.js";

describe("waterfall time axis", () => {
  it("steps by 1, 2 or 5 times a power of ten", () => {
    expect(tickStep(120, 5)).to.equal(50);
    expect(tickStep(1000, 5)).to.equal(200);
    expect(tickStep(0.8, 5)).to.equal(0.2);
    expect(tickStep(7_300, 5)).to.equal(2000);
  });

  it("labels ticks from 0 and leaves out one too near the end to fit", () => {
    expect(timeTicks(120).map((tick) => [tick.label, Math.round(tick.percent)])).to.deep.equal([
      ["0", 0],
      ["50ms", 42],
      ["100ms", 83],
    ]);
    expect(timeTicks(200).map((tick) => tick.label)).to.deep.equal(["0", "50ms", "100ms", "150ms"]);
  });

  it("steps a long trace by clock units, so every label is exactly where its tick is", () => {
    const MINUTE = 60_000;
    expect(timeTicks(2 * 60 * MINUTE).map((tick) => tick.label)).to.deep.equal(["0", "30m 0s", "1h 0m", "1h 30m"]);
    expect(timeTicks(45 * MINUTE).map((tick) => tick.label)).to.deep.equal([
      "0",
      "10m 0s",
      "20m 0s",
      "30m 0s",
      "40m 0s",
    ]);
    expect(timeTicks(150_000).map((tick) => tick.label)).to.deep.equal(["0", "30s", "1m 0s", "1m 30s", "2m 0s"]);
    expect(tickStep(7_300, 5)).to.equal(2000);
  });
});

describe("waterfall virtual window", () => {
  it("renders the rows in view and a margin, with the list's full height", () => {
    expect(virtualWindow(0, 240, 24, 100_000, 10)).to.deep.equal({ first: 0, end: 20, top: 0, height: 2_400_000 });
    expect(virtualWindow(24_000, 240, 24, 100_000, 10)).to.deep.equal({
      first: 990,
      end: 1020,
      top: 23_760,
      height: 2_400_000,
    });
    expect(virtualWindow(2_400_000, 240, 24, 100_000, 10)).to.deep.equal({
      first: 99_990,
      end: 100_000,
      top: 2_399_760,
      height: 2_400_000,
    });
    expect(virtualWindow(0, 240, 24, 0)).to.deep.equal({ first: 0, end: 0, top: 0, height: 0 });
  });

  it("scrolls just enough to show a row whole", () => {
    expect(scrollToReveal(5, 0, 240, 24)).to.equal(null);
    expect(scrollToReveal(10, 0, 240, 24)).to.equal(24);
    expect(scrollToReveal(3, 240, 240, 24)).to.equal(72);
  });
});

describe("waterfall keys", () => {
  const rows = [
    { key: "a", expandable: true, expanded: true, parentKey: null },
    { key: "b", expandable: true, expanded: false, parentKey: "a" },
    { key: "c", expandable: false, expanded: false, parentKey: "a" },
  ];

  it("moves between rows with up, down, Home and End, and starts from an edge with none selected", () => {
    expect(treeKeyAction(rows, 0, "ArrowDown")).to.deep.equal({ select: "b" });
    expect(treeKeyAction(rows, 2, "ArrowDown")).to.deep.equal({ select: "c" });
    expect(treeKeyAction(rows, 1, "ArrowUp")).to.deep.equal({ select: "a" });
    expect(treeKeyAction(rows, 1, "End")).to.deep.equal({ select: "c" });
    expect(treeKeyAction(rows, -1, "ArrowDown")).to.deep.equal({ select: "a" });
    expect(treeKeyAction(rows, -1, "ArrowUp")).to.deep.equal({ select: "c" });
  });

  it("closes an open row or goes to the parent with left, opens or enters with right, toggles with Enter and Space", () => {
    expect(treeKeyAction(rows, 0, "ArrowLeft")).to.deep.equal({ toggle: "a" });
    expect(treeKeyAction(rows, 2, "ArrowLeft")).to.deep.equal({ select: "a" });
    expect(treeKeyAction(rows, 1, "ArrowRight")).to.deep.equal({ toggle: "b" });
    expect(treeKeyAction(rows, 0, "ArrowRight")).to.deep.equal({ select: "b" });
    expect(treeKeyAction(rows, 2, "ArrowRight")).to.equal(null);
    expect(treeKeyAction(rows, 1, "Enter")).to.deep.equal({ toggle: "b" });
    expect(treeKeyAction(rows, 0, " ")).to.deep.equal({ toggle: "a" });
    expect(treeKeyAction(rows, 2, "Enter")).to.equal(null);
    expect(treeKeyAction(rows, 0, "x")).to.equal(null);
  });
});

import { expect } from "chai";
import {
  isWideRange,
  logTicks,
  niceStep,
  scatterScales,
  timeLabel,
  timeStep,
} from "../../../../../client/web/views/traces/scatter-scales.js";

const AREA = { left: 50, right: 450, top: 10, bottom: 210 };

describe("the traces scatter's scales", () => {
  it("picks nice steps for durations and clock steps for time", () => {
    expect(niceStep(230, 5)).to.equal(50);
    expect(niceStep(1, 5)).to.equal(0.2);
    expect(timeStep(4 * 60_000, 5)).to.equal(60_000);
    expect(timeStep(3000, 5)).to.equal(1000);
    expect(timeStep(2000, 11)).to.equal(1000);
  });

  it("turns logarithmic only when the durations span a wide range", () => {
    expect(isWideRange(100, 230)).to.equal(false);
    expect(isWideRange(1, 5000)).to.equal(true);
    expect(isWideRange(0, 5000)).to.equal(false);
    expect(logTicks(0.7, 3000, 12)).to.deep.equal([1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000]);
    expect(logTicks(0.7, 3000, 5)).to.deep.equal([1, 10, 100, 1000]);
  });

  it("places every point inside the plot area, later to the right and longer higher", () => {
    const points = [
      { startMs: 1_000_000, durationMs: 120 },
      { startMs: 1_020_000, durationMs: 230 },
      { startMs: 1_010_000, durationMs: 104 },
    ];
    const scales = scatterScales(points, AREA);
    expect(scales.log).to.equal(false);
    for (const point of points) {
      const x = scales.x(point.startMs);
      const y = scales.y(point.durationMs);
      expect(x).to.be.within(AREA.left, AREA.right);
      expect(y).to.be.within(AREA.top, AREA.bottom);
    }
    expect(scales.x(1_020_000)).to.be.greaterThan(scales.x(1_010_000));
    expect(scales.y(230)).to.be.lessThan(scales.y(120));
    expect(scales.yTicks[0]).to.deep.equal({ value: 0, at: AREA.bottom });
    expect(scales.xTicks.length).to.be.greaterThan(1);
    // A time label is not drawn where it would be cut by the frame.
    for (const tick of scales.xTicks) expect(tick.at).to.be.within(AREA.left + 26, AREA.right - 26);
    for (const tick of scales.yTicks) expect(tick.at).to.be.within(AREA.top, AREA.bottom);
  });

  it("draws widely spread durations on a log axis with ticks at powers of ten", () => {
    const scales = scatterScales(
      [
        { startMs: 0, durationMs: 2 },
        { startMs: 5000, durationMs: 4000 },
      ],
      AREA,
    );
    expect(scales.log).to.equal(true);
    expect(scales.y(2)).to.be.within(AREA.top, AREA.bottom);
    expect(scales.y(4000)).to.be.within(AREA.top, AREA.bottom);
    expect(scales.yTicks.map((tick) => tick.value)).to.deep.equal([10, 100, 1000]);
  });

  it("labels every time tick differently, however close the traces' starts", () => {
    const start = Date.UTC(2026, 0, 5, 13, 36, 55, 400);
    const cases = [
      [{ startMs: start, durationMs: 120 }],
      [0, 250, 400, 700].map((offset) => ({ startMs: start + offset, durationMs: 100 + offset })),
      // A day's window, as wide as the lookback goes, its ends on the same hour of two days.
      [0, 86_399_000].map((offset) => ({ startMs: Date.UTC(2026, 0, 5, 15) + offset, durationMs: 100 })),
    ];
    // The plot's widths: the default tick count and a wide page's (a tick per 110 px).
    for (const [area, count] of [
      [AREA, { x: 5, y: 4 }],
      [
        { ...AREA, right: 1268 },
        { x: 11, y: 4 },
      ],
    ] as const) {
      for (const points of cases) {
        const labels = scatterScales(points, area, count).xTicks.map((tick) => timeLabel(tick.value));
        expect(labels.length, `ticks for ${points.length} traces`).to.be.greaterThan(0);
        expect(new Set(labels).size, labels.join(", ")).to.equal(labels.length);
      }
    }
  });

  it("gives a single point and an empty list a usable frame", () => {
    const one = scatterScales([{ startMs: 5000, durationMs: 0 }], AREA);
    expect(one.x(5000)).to.equal((AREA.left + AREA.right) / 2);
    expect(one.y(0)).to.equal(AREA.bottom);
    expect(scatterScales([], AREA).yTicks.length).to.be.greaterThan(0);
  });
});

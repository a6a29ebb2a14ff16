import { expect } from "chai";
import { timeTickLabels } from "../../../../../client/web/views/metrics/time-ticks.js";

function local(day: number, hours: number, minutes: number, seconds = 0): number {
  return new Date(2026, 10, day, hours, minutes, seconds).getTime() / 1000;
}

describe("web metrics: time axis labels", () => {
  it("says the time in 24 hours, with the date under the first tick and at a new day", () => {
    const ticks = [local(25, 22, 0), local(25, 23, 0), local(26, 0, 0), local(26, 1, 0)];
    expect(timeTickLabels(ticks, 3600)).to.deep.equal(["22:00\n2026-11-25", "23:00", "00:00\n2026-11-26", "01:00"]);
  });

  it("adds seconds when ticks are under a minute apart", () => {
    expect(timeTickLabels([local(25, 14, 5, 0), local(25, 14, 5, 30)], 30)).to.deep.equal([
      "14:05:00\n2026-11-25",
      "14:05:30",
    ]);
  });
});

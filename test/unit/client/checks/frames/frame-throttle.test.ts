import { expect } from "chai";
import { FrameThrottle } from "../../../../../client/checks/frames/frame-throttle.js";

describe("frame throttle (--frame-interval)", () => {
  it("keeps the first frame, then one per interval measured from the last kept frame", () => {
    const throttle = new FrameThrottle(200);
    const arrivals = [1_000, 1_050, 1_199, 1_200, 1_390, 1_401, 1_600, 1_601, 2_500];
    expect(arrivals.filter((at) => throttle.admit(at))).to.deep.equal([1_000, 1_200, 1_401, 1_601, 2_500]);
  });

  it("keeps every frame with an interval of 0", () => {
    const throttle = new FrameThrottle(0);
    expect([5, 5, 6].map((at) => throttle.admit(at))).to.deep.equal([true, true, true]);
  });
});

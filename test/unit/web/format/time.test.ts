import { expect } from "chai";
import { isoToMs } from "../../../../client/web/format/time.js";

describe("the API's ISO times with nanoseconds", () => {
  it("reads them to the millisecond and keeps the digits after it as a fraction", () => {
    const whole = Date.parse("2026-11-25T13:07:43.758Z");
    expect(isoToMs("2026-11-25T13:07:43.758000000Z")).to.equal(whole);
    expect(isoToMs("2026-11-25T13:07:43.758500000Z")).to.be.closeTo(whole + 0.5, 1e-6);
    expect(isoToMs("2026-11-25T13:07:43Z")).to.equal(Date.parse("2026-11-25T13:07:43Z"));
    expect(isoToMs("2026-11-25T14:07:43.5+01:00")).to.equal(Date.parse("2026-11-25T13:07:43.500Z"));
    expect(isoToMs("yesterday")).to.be.NaN;
  });
});

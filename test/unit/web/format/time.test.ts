import { expect } from "chai";
import { formatDateTime, formatDuration, isoDateTime, isoToMs } from "../../../../client/web/format/time.js";

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

describe("formatDuration", () => {
  it("never writes 60 of a unit: it rounds to whole seconds before splitting minutes and hours", () => {
    expect(formatDuration(119_600)).to.equal("2m 0s");
    expect(formatDuration(119_400)).to.equal("1m 59s");
    expect(formatDuration(3_599_999)).to.equal("1h 0m");
    expect(formatDuration(3_540_000)).to.equal("59m 0s");
    expect(formatDuration(59_999)).to.equal("1m 0s");
    expect(formatDuration(999.9)).to.equal("1s");
    expect(formatDuration(0.9999)).to.equal("1ms");
  });

  it("keeps three significant digits below a minute", () => {
    expect(formatDuration(0.85)).to.equal("850µs");
    expect(formatDuration(12.44)).to.equal("12.4ms");
    expect(formatDuration(3214)).to.equal("3.21s");
    expect(formatDuration(125_000)).to.equal("2m 5s");
    expect(formatDuration(7_380_000)).to.equal("2h 3m");
    expect(formatDuration(-2.5)).to.equal("-2.5ms");
    expect(formatDuration(Number.NaN)).to.equal("–");
  });
});

describe("isoDateTime", () => {
  it("writes a readable time as ISO 8601 and nothing for an unreadable one (where toISOString throws)", () => {
    expect(isoDateTime(Date.parse("2026-11-25T13:07:43.758Z"))).to.equal("2026-11-25T13:07:43.758Z");
    expect(isoDateTime(Number.NaN)).to.equal(undefined);
    expect(isoDateTime(Number.POSITIVE_INFINITY)).to.equal(undefined);
    expect(isoDateTime(9e15)).to.equal(undefined);
    expect(formatDateTime(Number.NaN)).to.equal("–");
  });
});

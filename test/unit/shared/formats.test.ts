import { expect } from "chai";
import { formatByteSize, parseByteSize } from "../../../shared/byte-size.js";
import { DurationError, formatDuration, parseDuration } from "../../../shared/duration.js";
import { nsToIso, nsToMs } from "../../../shared/time.js";

describe("durations", () => {
  it("parses the spec's forms", () => {
    expect(parseDuration("15m")).to.equal(900_000);
    expect(parseDuration("2h")).to.equal(7_200_000);
    expect(parseDuration("1d")).to.equal(86_400_000);
    expect(parseDuration("30s")).to.equal(30_000);
    expect(parseDuration("250ms")).to.equal(250);
  });
  it("refuses anything else with a message that shows the form", () => {
    for (const bad of ["", "15", "m", "1.5h", "-1h", "15 minutes"]) {
      expect(() => parseDuration(bad), bad).to.throw(DurationError, /e\.g\. 15m/);
    }
    expect(() => parseDuration("0m")).to.throw(DurationError, /greater than zero/);
    // Not "greater than zero": its milliseconds pass what a number holds exactly.
    expect(() => parseDuration("1000000000d")).to.throw(DurationError, 'invalid duration "1000000000d": too long');
  });
  it("formats with the largest exact unit", () => {
    expect(formatDuration(900_000)).to.equal("15m");
    expect(formatDuration(604_800_000)).to.equal("7d");
    expect(formatDuration(90_000)).to.equal("90s");
  });
});

describe("byte sizes", () => {
  it("parses binary and decimal units", () => {
    expect(parseByteSize("16MiB")).to.equal(16 * 1024 * 1024);
    expect(parseByteSize("1GiB")).to.equal(1024 ** 3);
    expect(parseByteSize("500MB")).to.equal(500_000_000);
    expect(parseByteSize("4096")).to.equal(4096);
    expect(() => parseByteSize("lots")).to.throw(/invalid size/);
    expect(formatByteSize(16 * 1024 * 1024)).to.equal("16MiB");
  });
});

describe("nanosecond time", () => {
  it("formats ISO 8601 UTC with all nine fraction digits, never through a float", () => {
    expect(nsToIso(1544712660000000000n)).to.equal("2018-12-13T14:51:00.000000000Z");
    expect(nsToIso(1700000000123456789n)).to.equal("2023-11-14T22:13:20.123456789Z");
    expect(nsToIso(0n)).to.equal("1970-01-01T00:00:00.000000000Z");
  });
  it("converts durations to milliseconds", () => {
    expect(nsToMs(1_500_000n)).to.equal(1.5);
    expect(nsToMs(1_000_000_000n)).to.equal(1000);
    // Not cut to whole microseconds: as a span's duration in the tree reads (durationNs / 1e6).
    expect(nsToMs(1_500n)).to.equal(0.0015);
    expect(nsToMs(2_007_000n)).to.equal(2.007);
  });
});

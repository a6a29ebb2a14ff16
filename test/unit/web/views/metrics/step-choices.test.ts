import { expect } from "chai";
import {
  stepAlongWith,
  stepChoices,
  stepFits,
  stepOptions,
} from "../../../../../client/web/views/metrics/step-choices.js";

describe("web metrics: step choices", () => {
  it("offers only steps the series route takes for the window", () => {
    expect(stepChoices("5m")).to.deep.equal(["10s", "30s", "1m", "5m"]);
    expect(stepChoices("1h")).to.deep.equal(["10s", "30s", "1m", "5m", "15m", "1h"]);
    // Over an hour, whole minutes only; over 24h at most 1,440 buckets.
    expect(stepChoices("6h")).to.deep.equal(["1m", "5m", "15m", "1h"]);
    expect(stepChoices("24h")).to.deep.equal(["1m", "5m", "15m", "1h"]);
  });

  it("keeps a step from the address that the list lacks, and offers all for an unreadable window", () => {
    expect(stepOptions("15m", "2m")).to.deep.equal(["2m", "10s", "30s", "1m", "5m", "15m"]);
    expect(stepOptions("15m", "1m")).to.deep.equal(["10s", "30s", "1m", "5m", "15m"]);
    expect(stepChoices("soon")).to.have.length(6);
  });

  it("sends a step back to auto when a new window cannot take it", () => {
    expect(stepFits("10s", "15m")).to.equal(true);
    expect(stepFits("10s", "24h")).to.equal(false);
    expect(stepFits("90s", "6h")).to.equal(false);
    expect(stepFits("30m", "15m")).to.equal(false);
    expect(stepFits("500ms", "15m")).to.equal(false);
    // The window 10s was chosen over, widened to a day: 8,640 buckets, which the route refuses.
    expect(stepAlongWith("10s")("24h")).to.deep.equal({ step: null });
    expect(stepAlongWith("1m")("24h")).to.deep.equal({});
    expect(stepAlongWith(undefined)("24h")).to.deep.equal({});
  });
});

import { expect } from "chai";
import { actionKey, StallGuard } from "../../../../client/checks/agent/stall-guard.js";

describe("no-progress stall guard", () => {
  it("stops the third identical action that leaves the page unchanged", () => {
    const guard = new StallGuard(3);
    expect(guard.observe("click 1", false)).to.equal(null);
    expect(guard.observe("click 1", false)).to.equal(null);
    expect(guard.observe("click 1", false)).to.deep.equal({ action: "click 1", repeats: 3 });
  });

  it("starts over when the page changes or the action differs", () => {
    const guard = new StallGuard(3);
    guard.observe("click 1", false);
    guard.observe("click 1", false);
    expect(guard.observe("click 1", true)).to.equal(null);
    expect(guard.observe("click 1", false)).to.equal(null);
    expect(guard.observe("click 1", false)).to.equal(null);
    expect(guard.observe("scroll down", false)).to.equal(null);
    expect(guard.observe("click 1", false)).to.equal(null);
  });

  it("names an action the same whatever the argument order", () => {
    expect(actionKey("type", { text: "a", index: 2 })).to.equal(actionKey("type", { index: 2, text: "a" }));
    expect(actionKey("type", { index: 2, text: "a" })).not.to.equal(actionKey("type", { index: 2, text: "b" }));
  });
});

import { expect } from "chai";
import { groupsLine } from "../../../../client/cli/metrics-commands.js";

describe("obs metric's groups line", () => {
  it("says nothing when every group is shown", () => {
    expect(groupsLine({ returned: 3, truncated: false, limit: 20 })).to.equal("");
  });

  it("points to --limit below the cap, and to filters and fewer keys at it, where --limit cannot help", () => {
    expect(groupsLine({ returned: 20, truncated: true, limit: 20 })).to.equal(
      "\n20 groups shown; raise --limit (at most 100) for more",
    );
    const atCap = groupsLine({ returned: 100, truncated: true, limit: 100 });
    expect(atCap).to.not.include("raise --limit");
    expect(atCap).to.include("filter (attr.KEY=VALUE, --service) or group by fewer keys");
  });
});

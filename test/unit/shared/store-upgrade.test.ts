import { expect } from "chai";
import {
  STORE_UPGRADE_MARKER,
  storeUpgradeNotice,
  storeUpgradeProgressNotice,
  storeUpgradeStepNotice,
} from "../../../shared/store-upgrade.js";

describe("store upgrade lines", () => {
  it("all carry the marker `obs start` keeps waiting on while a long upgrade runs", () => {
    for (const line of [
      storeUpgradeNotice("/s/telemetry.sqlite", 10, 11),
      storeUpgradeProgressNotice(11, 440_000, 2_859_852, "posting entries"),
      storeUpgradeStepNotice(11, "postings coded", 11_834),
    ]) {
      expect(line).to.include(STORE_UPGRADE_MARKER);
    }
  });

  it("say how far a step is, in its unit, and how long a step took", () => {
    expect(storeUpgradeProgressNotice(11, 440_000, 2_859_852, "posting entries")).to.equal(
      "obsd: upgrading the database: schema version 11: 440,000 of 2,859,852 posting entries (15%)",
    );
    expect(storeUpgradeProgressNotice(12, 3, 4)).to.equal(
      "obsd: upgrading the database: schema version 12: 3 of 4 (75%)",
    );
    expect(storeUpgradeStepNotice(11, "postings coded", 11_834)).to.equal(
      "obsd: upgrading the database: schema version 11 (postings coded) done in 11.8 s",
    );
  });
});

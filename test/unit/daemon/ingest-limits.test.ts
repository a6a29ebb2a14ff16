import { expect } from "chai";
import { ingestLimits } from "../../../daemon/ingest/ingest-limits.js";

const MiB = 1024 * 1024;

describe("ingest limits", () => {
  it("allow one value per 96 bytes of the cap, hold less than two requests at the allowance, and give the workers 1,024 MB of old generation at the default cap", () => {
    expect(ingestLimits(16 * MiB)).to.deep.equal({
      maxDecodedValues: 174_763,
      budgetUnits: 2 * 174_763,
      worker: { maxYoungGenerationSizeMb: 16, maxOldGenerationSizeMb: 1024 },
    });
  });

  it("raise the workers' heap with a larger body cap, and never lower it under 1,024 MB", () => {
    expect(ingestLimits(256 * MiB).worker.maxOldGenerationSizeMb).to.equal(16_384);
    expect(ingestLimits(256 * MiB).maxDecodedValues).to.equal(2_796_203);
    expect(ingestLimits(1 * MiB).worker.maxOldGenerationSizeMb).to.equal(1024);
  });
});

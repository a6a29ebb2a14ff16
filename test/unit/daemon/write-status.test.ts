import { expect } from "chai";
import { WriteStatus, writeStatusLine } from "../../../daemon/ingest/write-status.js";

describe("write status", () => {
  it("reports one change when writes start failing and one when they recover", () => {
    const status = new WriteStatus();
    expect(status.succeeded()).to.equal(null);
    expect(status.snapshot()).to.deep.equal({ ok: true, failingSince: null, lastError: null, failedSinceOk: 0 });

    const at = new Date("2026-01-02T03:04:05.000Z");
    expect(status.failed("disk full", at)).to.deep.equal({ type: "failing", message: "disk full" });
    expect(status.failed("disk still full", new Date())).to.equal(null);
    expect(status.snapshot()).to.deep.equal({
      ok: false,
      failingSince: "2026-01-02T03:04:05.000Z",
      lastError: "disk still full",
      failedSinceOk: 2,
    });

    const recovered = status.succeeded();
    expect(recovered).to.deep.equal({ type: "recovered", failed: 2, sinceIso: "2026-01-02T03:04:05.000Z" });
    expect(writeStatusLine(recovered!)).to.equal(
      "obsd: writes succeed again (2 requests failed since 2026-01-02T03:04:05.000Z)",
    );
    // The last error stays visible after recovery.
    expect(status.snapshot()).to.deep.equal({
      ok: true,
      failingSince: null,
      lastError: "disk still full",
      failedSinceOk: 0,
    });
    expect(status.succeeded()).to.equal(null);
  });

  it("words the failing line with the failure", () => {
    expect(writeStatusLine({ type: "failing", message: "no space left" })).to.equal(
      "obsd: writes are failing: no space left",
    );
  });
});

import { expect } from "chai";
import { fastCommandOf } from "../../../client/cli/fast-path.js";

describe("fast path for obs monitor status", () => {
  it("recognises monitor status with its own flags", () => {
    expect(fastCommandOf(["monitor", "status"])).to.deep.equal({ name: "monitor status", json: false, address: {} });
    expect(fastCommandOf(["monitor", "status", "--json", "--port", "4318", "--host", "::1"])).to.deep.equal({
      name: "monitor status",
      json: true,
      address: { host: "::1", port: 4318 },
    });
    expect(fastCommandOf(["monitor", "status", "-p", "9"])?.address).to.deep.equal({ port: 9 });
    expect(fastCommandOf(["monitor", "status", "--monitor-port=9"])?.address).to.deep.equal({ port: 9 });
    expect(fastCommandOf(["monitor", "status", "-p", "65535"])?.address).to.deep.equal({ port: 65535 });
  });

  it("leaves everything else to the full parser, which owns help and usage errors", () => {
    for (const args of [
      [],
      ["monitor", "start"],
      ["status", "--json"],
      ["monitor", "status", "--help"],
      ["monitor", "status", "--port", "abc"],
      // The full parser's range: no collector listens on port 0 or above 65535.
      ["monitor", "status", "--port", "0"],
      ["monitor", "status", "--port", "99999"],
      ["monitor", "status", "-p", "65536"],
      ["monitor", "status", "--monitor-port=1.5"],
      ["monitor", "status", "--port"],
      ["monitor", "status", "--verbose"],
      ["monitor", "status", "extra"],
      ["monitor", "status", "--port", "1", "--monitor-port", "2"],
      // The full parser refuses a flag given twice; parseArgs would keep the last.
      ["monitor", "status", "--port", "1", "--port", "2"],
      ["monitor", "status", "-p", "1", "-p", "2"],
      ["monitor", "status", "--host", "a", "--monitor-host", "b"],
      ["monitor", "status", "--json", "--json"],
      ["monitor", "status", "--no-json"],
    ]) {
      expect(fastCommandOf(args), args.join(" ")).to.equal(null);
    }
  });
});

import { expect } from "chai";
import { exposedBindWarning } from "../../../shared/loopback-host.js";

describe("the warning for a bind other machines can reach", () => {
  it("is none for loopback names and addresses, however written", () => {
    for (const host of ["127.0.0.1", "127.0.0.2", "localhost", "LOCALHOST", "::1", "[::1]", " 127.0.0.1 "]) {
      expect(exposedBindWarning(host), host).to.equal(null);
    }
  });

  it("names every other address, the wildcard ones included", () => {
    for (const host of ["0.0.0.0", "::", "192.168.1.20", "example.test"]) {
      expect(exposedBindWarning(host), host).to.equal(
        `listening on ${host}, which is reachable from other machines; obsd has no authentication.`,
      );
    }
  });
});

import { lookup } from "node:dns/promises";
import { expect } from "chai";
import { sameListenAddress } from "../../../shared/listen-address.js";

describe("whether two hosts listen on the same address", () => {
  it("takes a name for the first address it resolves to, as a server given it listens there", async () => {
    const { address } = await lookup("localhost");
    expect(await sameListenAddress("localhost", address)).to.equal(true);
    expect(await sameListenAddress(address, "localhost")).to.equal(true);
  });

  it("tells loopback addresses apart, and an address from a name that does not resolve", async () => {
    expect(await sameListenAddress("127.0.0.1", "127.0.0.2")).to.equal(false);
    expect(await sameListenAddress("127.0.0.1", "::1")).to.equal(false);
    expect(await sameListenAddress("no-such-host.invalid", "127.0.0.1")).to.equal(false);
    expect(await sameListenAddress("no-such-host.invalid", "no-such-host.invalid")).to.equal(true);
  });
});

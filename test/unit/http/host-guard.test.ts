import { expect } from "chai";
import { hostOfHeader, isAllowedHost, isLoopbackOrigin } from "../../../daemon/http/host-guard.js";

describe("Host header guard", () => {
  const none = new Set<string>();

  it("extracts the host from Host headers with ports and IPv6 brackets", () => {
    expect(hostOfHeader("localhost:27686")).to.equal("localhost");
    expect(hostOfHeader("[::1]:27686")).to.equal("::1");
    expect(hostOfHeader("Example.COM")).to.equal("example.com");
  });

  it("allows loopback names and addresses", () => {
    for (const host of ["localhost:1", "127.0.0.1:27686", "127.1.2.3", "[::1]:80", "app.localhost:3000"]) {
      expect(isAllowedHost(host, "127.0.0.1", none), host).to.equal(true);
    }
  });

  it("refuses other names, as a DNS-rebinding page would send", () => {
    for (const host of ["evil.example", "evil.example:27686", "192.168.1.5:27686", "localhost.evil.example"]) {
      expect(isAllowedHost(host, "127.0.0.1", none), host).to.equal(false);
    }
  });

  it("allows the explicitly bound host, and local names when bound to every interface", () => {
    expect(isAllowedHost("10.0.0.7:27686", "10.0.0.7", none)).to.equal(true);
    expect(isAllowedHost("10.0.0.8:27686", "10.0.0.7", none)).to.equal(false);
    expect(isAllowedHost("devbox:27686", "0.0.0.0", new Set(["devbox"]))).to.equal(true);
    expect(isAllowedHost("other:27686", "0.0.0.0", new Set(["devbox"]))).to.equal(false);
  });

  it("recognizes loopback origins for CORS", () => {
    expect(isLoopbackOrigin("http://localhost:5173")).to.equal(true);
    expect(isLoopbackOrigin("http://127.0.0.1:3000")).to.equal(true);
    expect(isLoopbackOrigin("http://[::1]:3000")).to.equal(true);
    expect(isLoopbackOrigin("https://evil.example")).to.equal(false);
    expect(isLoopbackOrigin("null")).to.equal(false);
  });
});

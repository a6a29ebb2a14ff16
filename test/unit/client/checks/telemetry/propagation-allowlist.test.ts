import { expect } from "chai";
import {
  interceptPatterns,
  isAllowed,
  parseAllowlist,
} from "../../../../../client/checks/telemetry/propagation-allowlist.js";

describe("trace propagation allowlist", () => {
  it("reads hosts and host:port entries, lower-cased, without blanks or repeats", () => {
    expect(parseAllowlist(" LocalHost:3000, api.internal ,,[::1]:8080,api.internal")).to.deep.equal([
      { hostname: "localhost", port: "3000" },
      { hostname: "api.internal", port: null },
      { hostname: "[::1]", port: "8080" },
    ]);
    expect(parseAllowlist("")).to.deep.equal([]);
  });

  it("takes an origin for its host and port, the scheme's default when it names none", () => {
    expect(parseAllowlist("http://localhost:3000/,https://shop.test,localhost:80")).to.deep.equal([
      { hostname: "localhost", port: "3000" },
      { hostname: "shop.test", port: "443" },
      { hostname: "localhost", port: "80" },
    ]);
  });

  it("refuses entries that are not hosts, naming the entry", () => {
    for (const entry of ["localhost/api", "*.example.com", "user@host", "host?x=1", "http://", "a b"]) {
      expect(() => parseAllowlist(`localhost,${entry}`), entry).to.throw(`entry "${entry}" is not a host`);
    }
  });

  it("allows a request only to a listed host, and only on its port when one is listed", () => {
    const hosts = parseAllowlist("127.0.0.1:3000,api.internal,shop.test:443");
    expect(isAllowed("http://127.0.0.1:3000/orders", hosts)).to.equal(true);
    expect(isAllowed("http://127.0.0.1:3001/orders", hosts)).to.equal(false);
    expect(isAllowed("http://localhost:3000/orders", hosts)).to.equal(false);
    expect(isAllowed("https://API.internal:9443/v1", hosts)).to.equal(true);
    expect(isAllowed("https://shop.test/cart", hosts)).to.equal(true);
    expect(isAllowed("http://shop.test/cart", hosts)).to.equal(false);
    expect(isAllowed("https://tracker.example/pixel", hosts)).to.equal(false);
    expect(isAllowed("https://api.internal.evil.example/", hosts)).to.equal(false);
    expect(isAllowed("not a url", hosts)).to.equal(false);
  });

  it("intercepts by host and port, leaving a scheme-default port to the exact check", () => {
    expect(interceptPatterns(parseAllowlist("127.0.0.1:3000,api.internal,shop.test:443"))).to.deep.equal([
      { type: "pattern", hostname: "127.0.0.1", port: "3000" },
      { type: "pattern", hostname: "api.internal" },
      { type: "pattern", hostname: "shop.test" },
    ]);
  });
});

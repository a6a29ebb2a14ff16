import { expect } from "chai";
import { auditRequestOf } from "../../../../../client/web/views/audit/audit-request.js";

describe("web audit: the request a URL asks for", () => {
  it("carries the route's parameters as the URL holds them, leaving out the absent and the empty", () => {
    expect(
      auditRequestOf(
        new URLSearchParams("service=web&lookbackMinutes=30&baselineMinutes=60&durationMin=150&until=x&x=1"),
      ),
    ).to.deep.equal({
      service: "web",
      lookbackMinutes: "30",
      baselineMinutes: "60",
      durationMin: "150",
      until: "x",
    });
    expect(auditRequestOf(new URLSearchParams("service=&until=&x=1"))).to.deep.equal({});
  });

  it("passes a number typed wrong on to the collector rather than auditing without it", () => {
    expect(auditRequestOf(new URLSearchParams("lookbackMinutes=abc"))).to.deep.equal({ lookbackMinutes: "abc" });
    expect(auditRequestOf(new URLSearchParams("lookbackMinutes=5m&baselineMinutes=1h&durationMin=fast"))).to.deep.equal(
      { lookbackMinutes: "5m", baselineMinutes: "1h", durationMin: "fast" },
    );
  });
});

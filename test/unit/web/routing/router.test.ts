import { expect } from "chai";
import { matchRoute } from "../../../../client/web/routing/router.js";

describe("the UI's router (matchRoute)", () => {
  it("chooses each of the six views by its path, with or without a trailing slash", () => {
    const views: [string, string][] = [
      ["/ui/services", "services"],
      ["/ui/traces", "traces"],
      ["/ui/logs", "logs"],
      ["/ui/metrics", "metrics"],
      ["/ui/audit", "audit"],
    ];
    for (const [path, view] of views) {
      expect(matchRoute(path, "").view, path).to.equal(view);
      expect(matchRoute(`${path}/`, "").view, `${path}/`).to.equal(view);
    }
    const trace = matchRoute("/ui/traces/4bf92f3577b34da6a3ce929d0e0e4736/", "?span=00f067aa0ba902b7");
    expect(trace.view).to.equal("trace");
    expect(trace.traceId).to.equal("4bf92f3577b34da6a3ce929d0e0e4736");
    expect(trace.query.get("span")).to.equal("00f067aa0ba902b7");
    expect(trace.href).to.equal("/ui/traces/4bf92f3577b34da6a3ce929d0e0e4736/?span=00f067aa0ba902b7");
  });

  it("shows the services view at / and /ui", () => {
    for (const path of ["/", "/ui", "/ui/", "//"]) expect(matchRoute(path, "").view, path).to.equal("services");
  });

  it("decodes an encoded trace id", () => {
    expect(matchRoute("/ui/traces/a%20b%2Fc", "").traceId).to.equal("a b/c");
  });

  it("keeps a malformed escape as written instead of throwing", () => {
    const route = matchRoute("/ui/traces/%zz", "?span=x");
    expect(route.view).to.equal("trace");
    expect(route.traceId).to.equal("%zz");
    expect(matchRoute("/ui/traces/%E0%A4%A", "").traceId).to.equal("%E0%A4%A");
  });

  it("answers notFound for any other path, keeping the address", () => {
    for (const path of ["/ui/nope", "/ui/traces/a/b", "/uix", "/ui/trace"]) {
      const route = matchRoute(path, "?q=1");
      expect(route.view, path).to.equal("notFound");
      expect(route.href).to.equal(`${path}?q=1`);
    }
  });
});

import { expect } from "chai";
import { chooseCollector, isParentOrSelf } from "../../../client/discovery/choose-collector.js";
import type { RegistryEntry } from "../../../shared/control-protocol.js";

function entry(id: string, cwd: string): RegistryEntry {
  return {
    instanceId: id,
    pid: 1,
    cwd,
    host: "127.0.0.1",
    port: 1,
    baseUrl: "",
    dbPath: "",
    version: "",
    startedAt: "",
    socketPath: "",
  };
}

describe("collector choice", () => {
  const home = entry("a", "/home/dev");
  const shop = entry("b", "/home/dev/shop");
  const api = entry("c", "/home/dev/shop/api");
  const blog = entry("d", "/home/dev/blog");

  it("answers unresponsive where a collector that does not answer would be chosen, never another in its place", () => {
    // The project's own collector stopped for a moment: not its parent's, nor the sole answering one.
    expect(chooseCollector([home, blog], "/home/dev/shop/src", [shop])).to.deep.equal({
      kind: "unresponsive",
      entry: shop,
    });
    expect(chooseCollector([blog], "/tmp", [shop])).to.deep.equal({ kind: "ambiguous", candidates: [blog, shop] });
    expect(chooseCollector([], "/tmp", [shop])).to.deep.equal({ kind: "unresponsive", entry: shop });
    // One deeper and answering is chosen as before.
    expect(chooseCollector([api], "/home/dev/shop/api", [shop])).to.deep.include({ kind: "chosen", entry: api });
  });

  it("picks the collector whose folder is the deepest parent of the current folder", () => {
    expect(chooseCollector([home, shop, api, blog], "/home/dev/shop/api/src")).to.deep.include({
      kind: "chosen",
      entry: api,
      reason: "project",
    });
    expect(chooseCollector([home, shop, api, blog], "/home/dev/shop/web")).to.deep.include({ entry: shop });
    expect(chooseCollector([home, shop, blog], "/home/dev/blog")).to.deep.include({ entry: blog });
    expect(chooseCollector([home, shop, blog], "/home/dev/other")).to.deep.include({ entry: home });
  });

  it("does not mistake a name prefix for a parent folder", () => {
    expect(isParentOrSelf("/home/dev/shop", "/home/dev/shopping")).to.equal(false);
    expect(chooseCollector([shop, blog], "/home/dev/shopping")).to.deep.equal({
      kind: "ambiguous",
      candidates: [shop, blog],
    });
  });

  it("accepts a sole running collector from anywhere", () => {
    expect(chooseCollector([blog], "/tmp")).to.deep.equal({ kind: "chosen", entry: blog, reason: "sole" });
  });

  it("reports none, or an ambiguity with the candidates", () => {
    expect(chooseCollector([], "/tmp")).to.deep.equal({ kind: "none" });
    expect(chooseCollector([shop, blog], "/tmp")).to.deep.equal({ kind: "ambiguous", candidates: [shop, blog] });
    const twin = entry("e", "/home/dev/shop");
    expect(chooseCollector([shop, twin], "/home/dev/shop")).to.deep.equal({
      kind: "ambiguous",
      candidates: [shop, twin],
    });
  });
});

describe("explicit targets", () => {
  it("takes --base-url, then --host/--port, then OBS_MONITOR_URL, and otherwise none", async () => {
    const { explicitTarget } = await import("../../../client/discovery/explicit-target.js");
    const env = { OBS_MONITOR_URL: "http://127.0.0.1:9000/" };
    expect(explicitTarget({ baseUrl: "http://h:1/", port: 2 }, env)).to.deep.equal({
      baseUrl: "http://h:1",
      source: "flag",
    });
    expect(explicitTarget({ port: 2 }, env)).to.deep.equal({ baseUrl: "http://127.0.0.1:2", source: "flag" });
    expect(explicitTarget({ host: "::1" }, env)).to.deep.equal({ baseUrl: "http://[::1]:27686", source: "flag" });
    expect(explicitTarget({}, env)).to.deep.equal({ baseUrl: "http://127.0.0.1:9000", source: "env" });
    expect(explicitTarget({}, { OBS_MONITOR_URL: "" })).to.equal(null);
  });

  it("fills the half of --host/--port not given from OBS_MONITOR_HOST/OBS_MONITOR_PORT, as every setting is resolved", async () => {
    const { explicitTarget } = await import("../../../client/discovery/explicit-target.js");
    const env = { OBS_MONITOR_HOST: "127.0.0.2", OBS_MONITOR_PORT: "22000" };
    expect(explicitTarget({ host: "127.0.0.1" }, env)).to.deep.equal({
      baseUrl: "http://127.0.0.1:22000",
      source: "flag",
    });
    expect(explicitTarget({ port: 2 }, env)).to.deep.equal({ baseUrl: "http://127.0.0.2:2", source: "flag" });
    // A collector bound to every interface is reached on loopback.
    expect(explicitTarget({ port: 2 }, { OBS_MONITOR_HOST: "0.0.0.0" })).to.deep.equal({
      baseUrl: "http://127.0.0.1:2",
      source: "flag",
    });
    expect(explicitTarget({ port: 2 }, { OBS_MONITOR_HOST: "::" })).to.deep.equal({
      baseUrl: "http://[::1]:2",
      source: "flag",
    });
    // Neither flag: the environment alone names no collector (discovery chooses), as before.
    expect(explicitTarget({}, env)).to.equal(null);
    expect(() => explicitTarget({ host: "127.0.0.1" }, { OBS_MONITOR_PORT: "http" })).to.throw(/OBS_MONITOR_PORT/);
    // A start's 0 (any free port) names no collector: the default port stands in.
    expect(explicitTarget({ host: "127.0.0.1" }, { OBS_MONITOR_PORT: "0" })?.baseUrl).to.equal(
      "http://127.0.0.1:27686",
    );
  });

  it("takes an IPv6 --host or OBS_MONITOR_HOST with or without brackets, and refuses what is no host", async () => {
    const { explicitTarget } = await import("../../../client/discovery/explicit-target.js");
    const { LifecycleError } = await import("../../../client/lifecycle/lifecycle-error.js");
    expect(explicitTarget({ host: "[::1]", port: 2 }, {})?.baseUrl).to.equal("http://[::1]:2");
    expect(explicitTarget({ port: 2 }, { OBS_MONITOR_HOST: "[::1]" })?.baseUrl).to.equal("http://[::1]:2");
    expect(explicitTarget({ host: "LocalHost", port: 2 }, {})?.baseUrl).to.equal("http://LocalHost:2");
    const refusal = (run: () => unknown) => {
      try {
        run();
      } catch (error) {
        expect(error).to.be.instanceOf(LifecycleError);
        return { code: (error as InstanceType<typeof LifecycleError>).code, message: (error as Error).message };
      }
      throw new Error("the host was taken");
    };
    for (const host of ["127.0.0.1:25905", "", "local host", "[localhost]", "[::1", "http://h", "h/x"]) {
      const flag = refusal(() => explicitTarget({ host, port: 2 }, {}));
      expect(flag.code, host).to.equal("invalid_argument");
      expect(flag.message, host).to.match(new RegExp(`^--host ${JSON.stringify(host).replace(/[[\]/]/g, "\\$&")}: `));
    }
    const env = refusal(() => explicitTarget({ port: 2 }, { OBS_MONITOR_HOST: "local host" }));
    expect(env).to.deep.include({ code: "invalid_config" });
    expect(env.message).to.match(/^OBS_MONITOR_HOST="local host": /);
  });

  it("never repeats a password it refuses in a collector URL, from --base-url or OBS_MONITOR_URL", async () => {
    const { explicitTarget } = await import("../../../client/discovery/explicit-target.js");
    const { collectorBaseUrl } = await import("../../../client/cli/query-support.js");
    const refusal = (run: () => unknown) => {
      try {
        run();
      } catch (error) {
        return (error as Error).message;
      }
      throw new Error("the URL was taken");
    };
    const env = { OBS_MONITOR_URL: "http://admin:hunter2@127.0.0.1:9000" };
    const fromEnv = refusal(() => explicitTarget({}, env));
    expect(fromEnv).to.include("OBS_MONITOR_URL=http://admin:***@127.0.0.1:9000");
    expect(fromEnv).not.to.include("hunter2");
    const fromFlag = refusal(() => collectorBaseUrl("http://admin:hunter2@127.0.0.1:9000"));
    expect(fromFlag).to.include("--base-url http://admin:***@127.0.0.1:9000");
    expect(fromFlag).not.to.include("hunter2");
  });
});

import { expect } from "chai";
import { collectorInvocation } from "../../../client/lifecycle/collector-invocation.js";
import { collectorFlags, settingFlagsOf } from "../../../shared/collector-flags.js";
import { resolveSettings, type SettingFlags } from "../../../shared/collector-settings.js";
import { yargs } from "../../../shared/yargs-loader.js";

/** What obsd makes of the command line and environment it is started with. */
function asObsdSees(args: string[], env: NodeJS.ProcessEnv) {
  const parsed = collectorFlags(yargs(args)).strict().parseSync();
  return resolveSettings(settingFlagsOf(parsed), env, "/work/shop");
}

describe("the background collector's invocation", () => {
  const env = { OBS_STATE_DIR: "/tmp/obs-state-test" };
  /** Every start flag, each away from its default. */
  const everyFlag: SettingFlags = {
    host: "127.0.0.2",
    port: "4100",
    db: "/data/telemetry.sqlite",
    projectStore: undefined,
    retention: "2d",
    maxDbSize: "512MiB",
    maxBodySize: "8MiB",
    otlpStandardPorts: true,
    forward: ["http://upstream.example:4318", "https://second.example"],
    forwardProtocol: "http/json",
    forwardHeaders: ["api-key=s3cret value"],
  };

  it("covers every start flag obs monitor start accepts", () => {
    expect(Object.keys(everyFlag).sort()).to.deep.equal(Object.keys(settingFlagsOf({})).sort());
  });

  for (const [name, flags] of [
    ["every flag", everyFlag],
    ["--project-store", { ...everyFlag, db: undefined, projectStore: true }],
    ["no flag", {}],
  ] as const) {
    it(`starts obsd with the settings obs resolved (${name})`, () => {
      const asked = resolveSettings(flags, env, "/work/shop").settings;
      const invocation = collectorInvocation(asked, env);
      expect(asObsdSees(invocation.args, invocation.env).settings).to.deep.equal(asked);
    });
  }

  it("keeps forwarding header values off the command line", () => {
    const invocation = collectorInvocation(resolveSettings(everyFlag, env).settings, env);
    expect(invocation.args.join(" ")).not.to.include("s3cret");
  });
});

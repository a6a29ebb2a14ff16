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
    forwardHeaders: ["api-key=s3cret, value=1"],
  };
  const fromEnvironment = {
    ...env,
    OBS_MONITOR_HOST: "127.0.0.3",
    OBS_MONITOR_PORT: "4200",
    OBS_PROJECT_STORE: "1",
    OBS_RETENTION: "3d",
    OBS_MAX_DB_SIZE: "256MiB",
    OBS_MAX_BODY_SIZE: "4MiB",
    OBS_OTLP_STANDARD_PORTS: "1",
    OBS_FORWARD: "http://env-upstream.example",
    OBS_FORWARD_PROTOCOL: "grpc",
    OBS_FORWARD_HEADERS: "x-team=obs%2C%20local",
  };

  it("covers every start flag obs monitor start accepts", () => {
    expect(Object.keys(everyFlag).sort()).to.deep.equal(Object.keys(settingFlagsOf({})).sort());
  });

  const cases: [string, SettingFlags, NodeJS.ProcessEnv][] = [
    ["every flag", everyFlag, env],
    ["every flag, over the environment", everyFlag, fromEnvironment],
    ["--project-store", { ...everyFlag, db: undefined, projectStore: true }, env],
    ["no flag", {}, env],
    ["no flag, the environment", {}, fromEnvironment],
    ["some flags, the environment", { port: 0, db: "-odd name.sqlite", forwardHeaders: ["k=v"] }, fromEnvironment],
    ["switches turned off over the environment", { projectStore: false, otlpStandardPorts: false }, fromEnvironment],
  ];
  for (const [name, flags, environment] of cases) {
    it(`starts obsd with the settings obs resolved, from the same sources (${name})`, () => {
      const asked = resolveSettings(flags, environment, "/work/shop");
      const invocation = collectorInvocation(flags, environment);
      expect(asObsdSees(invocation.args, invocation.env)).to.deep.equal(asked);
    });
  }

  it("turns a switch the environment sets off with its --no- flag", () => {
    const parsed = collectorFlags(yargs(["--no-otlp-standard-ports", "--no-project-store"]))
      .strict()
      .parseSync();
    const settings = resolveSettings(settingFlagsOf(parsed), fromEnvironment, "/work/shop");
    expect(settings.settings.otlpStandardPorts).to.equal(false);
    expect(settings.sources.otlpStandardPorts).to.equal("flag");
    expect(settings.settings.dbPath).to.equal(resolveSettings({}, env, "/work/shop").settings.dbPath);
  });

  it("keeps forwarding header values off the command line", () => {
    expect(collectorInvocation(everyFlag, env).args.join(" ")).not.to.include("s3cret");
  });
});

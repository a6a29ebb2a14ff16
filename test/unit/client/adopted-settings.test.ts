import { expect } from "chai";
import { adoptionWarnings, settingDifferences } from "../../../client/lifecycle/adopted-settings.js";
import type { HealthRecord } from "../../../shared/api-records.js";
import { formatByteSize } from "../../../shared/byte-size.js";
import { resolveSettings, type SettingFlags } from "../../../shared/collector-settings.js";
import type { RegistryEntry } from "../../../shared/control-protocol.js";
import { forwardSummary } from "../../../shared/forward-settings.js";

describe("settings of an adopted collector", () => {
  const env = { OBS_STATE_DIR: "/tmp/obs-state-test" };
  const running: RegistryEntry = {
    instanceId: "ab".repeat(16),
    pid: 4242,
    cwd: "/work/shop",
    host: "127.0.0.1",
    port: 27700,
    baseUrl: "http://127.0.0.1:27700",
    dbPath: "/tmp/obs-state-test/monitor/telemetry.sqlite",
    version: "0.1.0",
    startedAt: "2026-01-01T00:00:00.000Z",
    socketPath: "/tmp/obs-state-test/monitor/run/x.sock",
  };
  /** Health as a collector started with `flags` reports it (daemon/http/health-route.ts). */
  const healthOf = (flags: SettingFlags): Pick<HealthRecord, "retention" | "configuration"> => {
    const { settings, sources } = resolveSettings(flags, env);
    const configuration: HealthRecord["configuration"] = {
      maxBodySize: { value: formatByteSize(settings.maxBodyBytes), source: sources.maxBodyBytes },
      otlpStandardPorts: { value: settings.otlpStandardPorts, source: sources.otlpStandardPorts },
    };
    if (settings.forward.length > 0) {
      const summary = forwardSummary(settings.forward);
      configuration.forward = { value: summary.urls, source: sources.forward };
      configuration.forwardProtocol = { value: summary.protocol, source: sources.forwardProtocol };
      configuration.forwardHeaders = { value: summary.headers, source: sources.forwardHeaders };
    }
    return { retention: { maxAge: "", maxAgeMs: settings.retentionMs, maxBytes: settings.maxDbBytes }, configuration };
  };

  it("finds none when the values are the same, however written", () => {
    const asked = resolveSettings({ retention: "24h", maxDbSize: "1024MiB" }, env);
    expect(settingDifferences(asked, running, healthOf({ retention: "1d" }))).to.deep.equal([]);
    expect(adoptionWarnings(running, [])).to.deep.equal([]);
  });

  it("names each differing setting with the running value and the one asked for", () => {
    const asked = resolveSettings(
      {
        db: "/data/other.sqlite",
        retention: "2d",
        maxBodySize: "8MiB",
        otlpStandardPorts: true,
        forward: ["http://up.example:4318"],
        forwardHeaders: ["api-key=secret"],
      },
      env,
    );
    const differences = settingDifferences(asked, running, healthOf({ maxDbSize: "256MiB" }));
    expect(differences).to.deep.equal([
      "--db /tmp/obs-state-test/monitor/telemetry.sqlite (asked for /data/other.sqlite)",
      "--retention 7d (asked for 2d)",
      "--max-db-size 256MiB (asked for 1GiB, the default)",
      "--max-body-size 16MiB (asked for 8MiB)",
      "--otlp-standard-ports off (asked for on)",
      "--forward none (asked for http://up.example:4318)",
    ]);
    const [warning] = adoptionWarnings(running, differences);
    expect(warning).to.match(/^adopted the collector already running at http:\/\/127\.0\.0\.1:27700 \(pid 4242\)/);
    expect(warning).to.include("--retention 7d (asked for 2d)");
    expect(warning).to.include("obs monitor stop --base-url http://127.0.0.1:27700");
    expect(warning).not.to.include("secret");
  });

  it("compares forwarding protocol and header names, never header values", () => {
    const health = healthOf({ forward: ["http://up.example:4318"], forwardHeaders: ["api-key=one"] });
    const same = resolveSettings({ forward: ["http://up.example:4318"], forwardHeaders: ["api-key=two"] }, env);
    expect(settingDifferences(same, running, health)).to.deep.equal([]);
    const other = resolveSettings(
      { forward: ["http://up.example:4318"], forwardProtocol: "grpc", forwardHeaders: ["x-team=a"] },
      env,
    );
    expect(settingDifferences(other, running, health)).to.deep.equal([
      "--forward-protocol http/protobuf (asked for grpc)",
      "--forward-header api-key=*** (asked for x-team=***)",
    ]);
  });

  it("compares only the store when the collector's health is unknown", () => {
    const asked = resolveSettings({ retention: "2d" }, env);
    expect(settingDifferences(asked, running, null)).to.deep.equal([]);
    const elsewhere = resolveSettings({ db: "/data/other.sqlite" }, env);
    expect(settingDifferences(elsewhere, running, null)).to.have.length(1);
  });
});

import { expect } from "chai";
import { healthSummary } from "../../../client/cli/status-command.js";
import type { HealthRecord } from "../../../shared/api-records.js";

function health(
  writes: HealthRecord["database"]["writes"],
  history?: HealthRecord["database"]["history"],
): HealthRecord {
  return {
    status: "ok",
    service: "obsd",
    instanceId: "0".repeat(32),
    pid: 42,
    cwd: "/work/app",
    startedAt: "2026-01-01T00:00:00.000Z",
    uptimeSeconds: 5,
    baseUrl: "http://127.0.0.1:27686",
    endpoints: [],
    database: { path: "/state/telemetry.sqlite", sizeBytes: 1048576, writes, ...(history ? { history } : {}) },
    retention: { maxAge: "7d", maxAgeMs: 604800000, maxBytes: 1073741824 },
    counts: { services: 1, servicesLookback: "15m", traces: 2, spans: 3, logs: 4, series: 5, points: 6 },
    forwarding: [],
    latestTelemetryAt: null,
    configuration: {},
    versions: { obs: "0.1.0", node: "v20.0.0", sqlite: "3.45.0", schema: 1 },
  };
}

const UI = "http://127.0.0.1:27686/";

describe("obs status summary", () => {
  it("names the web UI right under the collector's address", () => {
    const text = healthSummary(health({ ok: true, failingSince: null, lastError: null, failedSinceOk: 0 }), "flag", UI);
    expect(text.split("\n")[1]).to.equal("  web UI    http://127.0.0.1:27686/");
  });

  it("warns when the collector's writes are failing, with since when and why", () => {
    const text = healthSummary(
      health({ ok: false, failingSince: "2026-01-01T00:01:00.000Z", lastError: "no space left", failedSinceOk: 3 }),
      "discovery",
      UI,
    );
    expect(text.split("\n").at(-1)).to.equal(
      "  warning   writes failing since 2026-01-01T00:01:00.000Z: no space left",
    );
  });

  it("escapes control characters in the write error's text", () => {
    const text = healthSummary(
      health({
        ok: false,
        failingSince: "2026-01-01T00:01:00.000Z",
        lastError: "\u001b]0;x\u0007\u001b[2J",
        failedSinceOk: 1,
      }),
      "flag",
      UI,
    );
    expect(text.split("\n").at(-1)).to.equal(
      "  warning   writes failing since 2026-01-01T00:01:00.000Z: \\x1b]0;x\\x07\\x1b[2J",
    );
  });

  it("counts what the store holds, metric points and series included", () => {
    const text = healthSummary(health({ ok: true, failingSince: null, lastError: null, failedSinceOk: 0 }), "flag", UI);
    expect(text.split("\n")[4]).to.equal(
      "  stored    2 traces, 3 spans, 4 logs, 6 metric points in 5 series; latest none",
    );
  });

  it("has no warning while writes succeed, even after a past failure", () => {
    const text = healthSummary(
      health({ ok: true, failingSince: null, lastError: "old", failedSinceOk: 0 }),
      "flag",
      UI,
    );
    expect(text).to.not.contain("warning");
    expect(text.split("\n")).to.have.length(6);
  });

  it("lists every endpoint with its protocols, and a standard port that could not be opened with why", () => {
    const protocols = ["grpc" as const, "http/protobuf" as const, "http/json" as const];
    const record = {
      ...health({ ok: true, failingSince: null, lastError: null, failedSinceOk: 0 }),
      endpoints: [
        {
          role: "main" as const,
          url: "http://127.0.0.1:27686",
          port: 27686,
          protocols,
          listening: true,
          problem: null,
        },
        {
          role: "otlp-grpc" as const,
          url: "http://127.0.0.1:4317",
          port: 4317,
          protocols,
          listening: true,
          problem: null,
        },
        {
          role: "otlp-http" as const,
          url: "http://127.0.0.1:4318",
          port: 4318,
          protocols,
          listening: false,
          problem: "port 4318 is in use by another process",
        },
      ],
    };
    expect(healthSummary(record, "flag", UI).split("\n").slice(6)).to.deep.equal([
      "  listens   http://127.0.0.1:27686  OTLP gRPC + HTTP, query API: grpc, http/protobuf, http/json",
      "  listens   http://127.0.0.1:4317  OTLP standard port (otlp-grpc): grpc, http/protobuf, http/json",
      "  listens   http://127.0.0.1:4318  OTLP standard port (otlp-http): not listening (port 4318 is in use by another process)",
    ]);
  });

  it("says per signal how far back the store reaches and what a record costs, once measured", () => {
    const ok = { ok: true, failingSince: null, lastError: null, failedSinceOk: 0 };
    const text = healthSummary(
      health(ok, {
        spans: { oldest: "2026-01-01T00:00:00.000000000Z", reachSeconds: 7_200, bytesPerRecord: 713 },
        logs: { oldest: "2025-12-31T00:00:00.000000000Z", reachSeconds: 93_600, bytesPerRecord: null },
        points: { oldest: "2025-12-25T00:00:00.000000000Z", reachSeconds: 7 * 86_400 + 7_200, bytesPerRecord: 82 },
        measuredAt: "2026-01-01T02:00:00.000Z",
      }),
      "flag",
      UI,
    );
    const lines = text.split("\n").filter((line) => line.startsWith("  history"));
    expect(lines).to.deep.equal([
      "  history   spans back 2 h (from 2026-01-01T00:00:00.000000000Z), 713 B per span",
      "  history   logs back 26 h (from 2025-12-31T00:00:00.000000000Z), size not measured",
      "  history   metric points back 7.08 d (from 2025-12-25T00:00:00.000000000Z), 82 B per point",
    ]);
    // Right after what is stored, before the services line.
    const all = text.split("\n");
    expect(all.indexOf(lines[0] as string)).to.equal(all.findIndex((line) => line.startsWith("  stored")) + 1);
  });

  it("has no history lines for a collector that does not report it", () => {
    const text = healthSummary(health({ ok: true, failingSince: null, lastError: null, failedSinceOk: 0 }), "flag", UI);
    expect(text).to.not.include("history");
  });
});

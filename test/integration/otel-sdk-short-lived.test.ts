import { OTLPMetricExporter as JsonMetricExporter } from "@opentelemetry/exporter-metrics-otlp-http";
import { resourceFromAttributes } from "@opentelemetry/resources";
import { MeterProvider, PeriodicExportingMetricReader } from "@opentelemetry/sdk-metrics";
import { expect } from "chai";
import { type CollectorProcess, startCollectorProcess } from "../helpers/collector-process.js";
import { http } from "../helpers/http.js";

describe("OpenTelemetry JS SDK: short-lived processes' cumulative counters against obsd", function () {
  this.timeout(60_000);
  let obsd: CollectorProcess;

  before(async () => {
    obsd = await startCollectorProcess();
  });
  after(async () => {
    expect(await obsd.stop()).to.equal(0);
  });

  it("counts every short-lived process's cumulative counter whole, though its start time equals its time", async () => {
    // A CLI that records and exits within a millisecond sends a cumulative point whose start
    // (its first recording, in milliseconds) equals its time: the count since that start is all
    // it ever reports, and must not be lost.
    const service = "short-lived";
    for (let run = 0; run < 10; run++) {
      const provider = new MeterProvider({
        resource: resourceFromAttributes({ "service.name": service }),
        readers: [
          new PeriodicExportingMetricReader({
            exporter: new JsonMetricExporter({ url: `${obsd.url}/v1/metrics` }),
            exportIntervalMillis: 3_600_000,
          }),
        ],
      });
      provider
        .getMeter("cli")
        .createCounter("cli.tokens")
        .add(5, { run: String(run) });
      await provider.shutdown();
    }
    // From raw points (the 15-minute window's default step) and from the 900 s rollups.
    for (const step of [null, "15m"]) {
      const query = new URLSearchParams({ name: "cli.tokens", service, agg: "increase", lookback: "15m" });
      if (step) query.set("step", step);
      const answer = await http(`${obsd.url}/api/metrics/series?${query}`);
      expect(answer.status, answer.body.toString()).to.equal(200);
      const values = answer.json().data.groups[0].values as (number | null)[];
      expect(
        values.reduce((sum: number, value) => sum + (value ?? 0), 0),
        `step ${step}`,
      ).to.equal(50);
    }
  });
});

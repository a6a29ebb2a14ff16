import { OTLPMetricExporter } from "@opentelemetry/exporter-metrics-otlp-proto";
import { resourceFromAttributes } from "@opentelemetry/resources";
import { AggregationType, MeterProvider, PeriodicExportingMetricReader } from "@opentelemetry/sdk-metrics";
import { expect } from "chai";
import { type CollectorProcess, startCollectorProcess } from "../helpers/collector-process.js";
import { http } from "../helpers/http.js";

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe("OpenTelemetry JS SDK exponential histogram whose range widens", function () {
  this.timeout(60_000);
  let obsd: CollectorProcess;

  before(async () => {
    obsd = await startCollectorProcess();
  });
  after(async () => {
    expect(await obsd.stop()).to.equal(0);
  });

  it("counts each observation once and no reset when the SDK lowers the scale", async () => {
    const service = "exp-rescale";
    const provider = new MeterProvider({
      resource: resourceFromAttributes({ "service.name": service }),
      readers: [
        new PeriodicExportingMetricReader({
          exporter: new OTLPMetricExporter({ url: `${obsd.url}/v1/metrics` }),
          exportIntervalMillis: 3_600_000,
        }),
      ],
      views: [{ instrumentName: "payload.size", aggregation: { type: AggregationType.EXPONENTIAL_HISTOGRAM } }],
    });
    const sizes = provider.getMeter("m").createHistogram("payload.size", { unit: "By" });
    // One value alone is exported at the highest scale; a value a million times larger makes
    // the cumulative histogram lower its scale (its 160 buckets must span both), counts carried on.
    for (const value of [1, 1_000_000, 2]) {
      sizes.record(value);
      await sleep(20);
      await provider.forceFlush();
      await sleep(1_100);
    }
    await provider.shutdown();
    // From raw points (the 15-minute window's default step), the 60 s and the 900 s rollups.
    for (const step of [null, "1m", "15m"]) {
      const query = new URLSearchParams({ name: "payload.size", service, agg: "count", lookback: "15m" });
      if (step) query.set("step", step);
      const answer = await http(`${obsd.url}/api/metrics/series?${query}`);
      expect(answer.status, answer.body.toString()).to.equal(200);
      const group = answer.json().data.groups[0] as { values: (number | null)[]; resets: number };
      expect(
        group.values.reduce((sum: number, value) => sum + (value ?? 0), 0),
        `count, step ${step}`,
      ).to.equal(3);
      expect(group.resets, `resets, step ${step}`).to.equal(0);
    }
  });
});

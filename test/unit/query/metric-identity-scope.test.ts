import { expect } from "chai";
import { describeMetricAnswer, metricSeriesAnswer } from "../../../daemon/query/metric-answers.js";
import { metricBatch, metricPoint } from "../../helpers/metric-points.js";
import { type MetricReadStore, metricReadStore } from "../../helpers/metric-reader.js";

const S = 1_000_000_000n;
const BASE = BigInt(Math.floor(1_700_000_000 / 900) * 900) * S;
const at = (seconds: number) => BASE + BigInt(seconds) * S;
const NOW = at(240);

/**
 * One name, two identities: `checkout` counts `orders` cumulatively, `billing` as deltas (a
 * separate identity, since its temporality differs), each exporting every 10 s, billing 5 s
 * after checkout. A query scoped to a service answers from that service's identity, whichever
 * was written last.
 */
describe("a metric name with several identities, scoped by service", () => {
  let fixture: MetricReadStore;

  beforeEach(() => {
    const ticks = Array.from({ length: 24 }, (_, i) => i * 10);
    const checkout = ticks.map((t) =>
      metricPoint({ name: "orders", timeNs: at(t), startNs: at(-7200), value: 100 + 2 * t }),
    );
    const billing = ticks.map((t) =>
      metricPoint({ name: "orders", temporality: 1, timeNs: at(t + 5), startNs: at(t - 5), value: 10 }),
    );
    fixture = metricReadStore(at(-3600), (store) =>
      store.writer.transaction(() => {
        store.writer.writeMetrics(metricBatch("checkout", checkout), NOW);
        store.writer.writeMetrics(metricBatch("billing", billing), NOW);
      }),
    );
  });
  afterEach(() => fixture.close());

  const ctx = () => ({ reader: fixture.reader, nowNs: NOW, lookbackMs: 15 * 60_000 });

  it("answers the series of the service asked for, from its own identity", () => {
    const answer = metricSeriesAnswer(
      { name: "orders", service: "checkout", agg: "increase", step: 60_000, lookback: 240_000 },
      ctx(),
      { limit: 20, cap: 100 },
    );
    expect(answer.data).to.include({ temporality: "cumulative", monotonic: true });
    // 2 a second, cumulative: the first point is the baseline.
    expect(answer.data.groups[0]?.values).to.deep.equal([100, 120, 120, 120, null]);
    const billing = metricSeriesAnswer(
      { name: "orders", service: "billing", agg: "increase", step: 60_000, lookback: 240_000 },
      ctx(),
      { limit: 20, cap: 100 },
    );
    expect(billing.data).to.include({ temporality: "delta", monotonic: true });
    // 10 a delta, six a minute.
    expect(billing.data.groups[0]?.values).to.deep.equal([60, 60, 60, 60, null]);
  });

  it("describes the service asked for, from its own identity", () => {
    const answer = describeMetricAnswer({ name: "orders", service: "checkout" }, ctx());
    expect(answer.data.services).to.deep.equal(["checkout"]);
    expect(answer.data.temporality).to.equal("cumulative");
  });

  it("for a service that never wrote the name, takes the identity written to most recently, as without one", () => {
    // Created first (the lower id), written to last.
    const other = metricReadStore(at(-3600), (store) =>
      store.writer.transaction(() => {
        store.writer.writeMetrics(
          metricBatch("billing", [metricPoint({ name: "orders", temporality: 1, timeNs: at(200), value: 1 })]),
          NOW,
        );
        store.writer.writeMetrics(
          metricBatch("checkout", [metricPoint({ name: "orders", timeNs: at(100), value: 1 })]),
          NOW,
        );
      }),
    );
    try {
      const newest = other.reader.metricIdentities("orders")[0];
      expect(newest?.temporality).to.equal(1);
      expect(other.reader.metricIdentities("orders", "nobody")[0]).to.deep.equal(newest);
    } finally {
      other.close();
    }
  });
});

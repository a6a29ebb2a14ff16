import { expect } from "chai";
import { metricSeriesAnswer } from "../../../daemon/query/metric-answers.js";
import { metricBatch, metricPoint } from "../../helpers/metric-points.js";
import { type MetricReadStore, metricReadStore } from "../../helpers/metric-reader.js";

const S = 1_000_000_000n;
const BASE = BigInt(Math.floor(1_700_000_000 / 900) * 900) * S;
const at = (seconds: number) => BASE + BigInt(seconds) * S;
/** Now: a little past the newest export. */
const NOW = 1805;

/**
 * The default step of a short window is at least the series' export interval: an SDK's default
 * (every 60 s) read at the window's own step (10 s over 15 minutes) put a minute's increase in
 * one bucket of six, reading six times the rate there and nothing in the other five.
 */
describe("the default step of a metric query", () => {
  let fixture: MetricReadStore;

  beforeEach(() => {
    /** `name` counting 2 a second, exported every `everyS` seconds (a little late each time, as exporters are). */
    const counter = (name: string, everyS: number, attributes = "{}") =>
      Array.from({ length: Math.floor(1800 / everyS) }, (_, i) => {
        const t = i * everyS + (i % 3) * 0.2;
        const timeNs = at(0) + BigInt(Math.round(t * 1e9));
        return metricPoint({ name, timeNs, startNs: at(-7200), value: 2 * t, attributes });
      });
    const points = [
      ...counter("minutely", 60),
      ...counter("fast", 10),
      ...counter("halfminutely", 30),
      ...counter("mixed", 10, '{"pod":"a"}'),
      ...counter("mixed", 60, '{"pod":"b"}'),
    ];
    fixture = metricReadStore(at(-3600), (store) =>
      store.writer.transaction(() => store.writer.writeMetrics(metricBatch("api", points), at(NOW))),
    );
  });
  afterEach(() => fixture.close());

  const answer = (name: string, lookbackS: number) =>
    metricSeriesAnswer(
      { name, agg: "rate", lookback: lookbackS * 1000 },
      { reader: fixture.reader, nowNs: at(NOW), lookbackMs: 15 * 60_000 },
      { limit: 20, cap: 100 },
    ).data;

  it("reads a series exported every minute a minute a bucket over 15 minutes, at its rate in every bucket", () => {
    const data = answer("minutely", 900);
    expect(data.step).to.equal("1m");
    const closed = data.groups[0]!.values.slice(1, -1);
    expect(closed.length).to.be.above(10);
    for (const value of closed) expect(value).to.be.closeTo(2, 0.05);
  });

  it("sees the export interval in a window too short to hold two of its points", () => {
    // A minute's window holds one export of a minutely series: the points before it tell the
    // interval (a 1 s step put the minute's increase in one bucket, at 60 times the rate).
    const data = answer("minutely", 60);
    expect(data.step).to.equal("1m");
    for (const value of data.groups[0]!.values) if (value !== null) expect(value).to.be.closeTo(2, 0.2);
    expect(answer("minutely", 120).step).to.equal("1m");
  });

  it("keeps the window's step for series exported more often than it", () => {
    expect(answer("fast", 900).step).to.equal("10s");
    expect(answer("halfminutely", 900).step).to.equal("30s");
    expect(answer("halfminutely", 1800).step).to.equal("30s");
    // One series every 10 s and one every minute: the faster one's resolution is kept.
    expect(answer("mixed", 900).step).to.equal("10s");
  });
});

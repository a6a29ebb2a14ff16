import { expect } from "chai";
import { metricSeriesAnswer } from "../../../daemon/query/metric-answers.js";
import { metricBatch, metricPoint } from "../../helpers/metric-points.js";
import { type MetricReadStore, metricReadStore } from "../../helpers/metric-reader.js";

const S = 1_000_000_000n;
const BASE = BigInt(Math.floor(1_700_000_000 / 900) * 900) * S;
const at = (seconds: number) => BASE + BigInt(seconds) * S;

/** JSON has no number for an infinite value: the answer says null, and orders the group as one. */
describe("infinite metric values in an answer", () => {
  let fixture: MetricReadStore;

  beforeEach(() => {
    const gauge = (k: string, t: number, value: number) =>
      metricPoint({
        name: "level",
        kind: "gauge",
        temporality: 0,
        monotonic: false,
        timeNs: at(t),
        value,
        attributes: JSON.stringify({ k }),
      });
    const points = [
      gauge("inf", 0, 1),
      gauge("inf", 10, Number.POSITIVE_INFINITY),
      gauge("inf", 20, 3),
      gauge("plain", 0, 5),
      gauge("plain", 20, 6),
    ];
    fixture = metricReadStore(at(-3600), (store) =>
      store.writer.transaction(() => store.writer.writeMetrics(metricBatch("api", points), at(30))),
    );
  });
  afterEach(() => fixture.close());

  it("answers an infinite bucket as null and orders its group as one without a latest value", () => {
    const data = metricSeriesAnswer(
      { name: "level", agg: "max", step: 60_000, groupBy: [{ attr: "k" }], lookback: 15 * 60_000 },
      { reader: fixture.reader, nowNs: at(30), lookbackMs: 15 * 60_000 },
      { limit: 20, cap: 100 },
    ).data;
    expect(data.groups.map((g) => [g.group["attr.k"], g.latest])).to.deep.equal([
      ["plain", 6],
      ["inf", null],
    ]);
    expect(data.groups[1]?.values.every((v) => v === null)).to.equal(true);
    // Per 10 s the finite points keep their values.
    const fine = metricSeriesAnswer(
      { name: "level", agg: "max", step: 10_000, groupBy: [{ attr: "k" }], lookback: 15 * 60_000 },
      { reader: fixture.reader, nowNs: at(30), lookbackMs: 15 * 60_000 },
      { limit: 20, cap: 100 },
    ).data;
    const inf = fine.groups.find((g) => g.group["attr.k"] === "inf");
    expect(inf?.values.filter((v) => v !== null)).to.deep.equal([1, 3]);
    expect(inf?.latest).to.equal(3);
  });
});

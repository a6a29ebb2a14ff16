import { expect } from "chai";
import { decodeMetricRequest } from "../../../daemon/otlp/decode-request.js";
import { metricSeriesAnswer } from "../../../daemon/query/metric-answers.js";
import { type MetricReadStore, metricReadStore } from "../../helpers/metric-reader.js";

const S = 1_000_000_000n;
const BASE = BigInt(Math.floor(1_700_000_000 / 900) * 900) * S;
const NOW = BASE + 240n * S;
const text = (key: string, value: string) => ({ key, value: { stringValue: value } });

/**
 * A key on both the resource and the point: the point's value is the series' (as grouping reads
 * it), the resource's only where the point has none. Two services with `env=prod` on their
 * resource: `shop` sends its gauge with `env=test` on the point, `cart` without.
 */
describe("a metric attribute on both the resource and the point", () => {
  let fixture: MetricReadStore;

  beforeEach(() => {
    const body = {
      resourceMetrics: ["shop", "cart"].map((service) => ({
        resource: { attributes: [text("service.name", service), text("env", "prod")] },
        scopeMetrics: [
          {
            scope: { name: "test" },
            metrics: [
              {
                name: "queue.depth",
                gauge: {
                  dataPoints: [
                    {
                      timeUnixNano: `${NOW - 30n * S}`,
                      asInt: service === "shop" ? "5" : "7",
                      attributes: service === "shop" ? [text("env", "test")] : [],
                    },
                  ],
                },
              },
            ],
          },
        ],
      })),
    };
    fixture = metricReadStore(BASE - 3600n * S, (store) =>
      store.writer.transaction(() =>
        store.writer.writeMetrics(decodeMetricRequest(Buffer.from(JSON.stringify(body)), "json"), NOW),
      ),
    );
  });
  afterEach(() => fixture.close());

  const groups = (attrs: [string, string][]) =>
    metricSeriesAnswer(
      { name: "queue.depth", attrs, groupBy: ["service", { attr: "env" }], lookback: 15 * 60_000 },
      { reader: fixture.reader, nowNs: NOW, lookbackMs: 15 * 60_000 },
      { limit: 20, cap: 100 },
    ).data.groups.map((g) => [g.group.service, g.group["attr.env"], g.latest]);

  it("filters by the value it groups by: the point's, else the resource's", () => {
    expect(groups([])).to.have.deep.members([
      ["shop", "test", 5],
      ["cart", "prod", 7],
    ]);
    // Filtered by env=prod, shop's series (its point says test) was kept and grouped as test.
    expect(groups([["env", "prod"]])).to.deep.equal([["cart", "prod", 7]]);
    expect(groups([["env", "test"]])).to.deep.equal([["shop", "test", 5]]);
  });
});

import { expect } from "chai";
import { pointFilter } from "../../../daemon/store/kept-records.js";
import { metricBatch, metricPoint } from "../../helpers/metric-points.js";

const S = 1_000_000_000n;
const T0 = 1_700_000_100n * S;

describe("kept metric points", () => {
  it("counts a point repeated in a request once, and rejects points before the cutoff", () => {
    const points = [
      metricPoint({ timeNs: T0, value: 1 }),
      metricPoint({ timeNs: T0, value: 2 }),
      metricPoint({ timeNs: T0, value: 1, attributes: '{"a":"b"}' }),
      metricPoint({ timeNs: T0, value: 1, name: "other" }),
      metricPoint({ timeNs: T0 - 10n * S, value: 1 }),
    ];
    const filter = pointFilter(metricBatch("api", points), T0 - S);
    const kept = [...filter.keep(points.slice(0, 2)), ...filter.keep(points.slice(2))];
    // The repeat (same series and time, another value) is the first copy's.
    expect(kept.map((point) => point.value)).to.deep.equal([1, 1, 1]);
    expect(filter.tally(3)).to.deep.equal({ accepted: 3, inserted: 3, rejected: 1 });
  });
});

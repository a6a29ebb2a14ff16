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

  it("tells series apart by every part of their identity, and knows a repeat after points of other series", () => {
    const batch = metricBatch("api", []);
    // A second resource and scope entry with the same content as the first: the same series.
    batch.resources.push({ ...(batch.resources[0] as (typeof batch.resources)[0]) });
    batch.scopes.push({ ...(batch.scopes[0] as (typeof batch.scopes)[0]) });
    const other = metricBatch("web", []).resources[0] as (typeof batch.resources)[0];
    batch.resources.push(other);
    batch.scopes.push({ ...(batch.scopes[0] as (typeof batch.scopes)[0]), hash: "another-scope" });
    const base = metricPoint({ timeNs: T0, value: 1 });
    const distinct = [
      base,
      { ...base, name: "other" },
      { ...base, unit: "ms" },
      { ...base, kind: "gauge" as const },
      { ...base, temporality: 1 },
      { ...base, monotonic: !base.monotonic },
      { ...base, resource: 2 },
      { ...base, scope: 2 },
      { ...base, attributes: '{"a":"b"}' },
      { ...base, timeNs: T0 + 1n },
    ];
    // Each right after the point it differs from in one part.
    for (const point of distinct.slice(1)) {
      expect(pointFilter(batch, 0n).keep([base, point])).to.deep.equal([base, point]);
    }
    const repeats = [
      { ...base, value: 2 },
      { ...base, resource: 1, value: 3 },
      { ...base, scope: 1, value: 4 },
    ];
    const filter = pointFilter(batch, 0n);
    const kept = filter.keep([...distinct, ...repeats, { ...distinct[1], value: 5 } as typeof base]);
    expect(kept).to.deep.equal(distinct);
    expect(filter.tally(distinct.length).accepted).to.equal(distinct.length);
  });

  it("knows a repeat of any of a series' times in a request, in any order, across slices", () => {
    const at = (seconds: bigint, value: number) => metricPoint({ timeNs: T0 + seconds * S, value });
    const other = (seconds: bigint) => metricPoint({ timeNs: T0 + seconds * S, value: 9, attributes: '{"a":"b"}' });
    const points = [
      at(0n, 1),
      other(0n),
      at(10n, 2),
      at(20n, 3),
      other(10n),
      at(10n, 4),
      at(0n, 5),
      at(30n, 6),
      at(20n, 7),
      at(30n, 8),
    ];
    const filter = pointFilter(metricBatch("api", points), 0n);
    const kept = [
      ...filter.keep(points.slice(0, 3)),
      ...filter.keep(points.slice(3, 6)),
      ...filter.keep(points.slice(6)),
    ];
    expect(kept.map((point) => point.value)).to.deep.equal([1, 9, 2, 3, 9, 6]);
    expect(filter.tally(6)).to.deep.equal({ accepted: 6, inserted: 6, rejected: 0 });
  });

  it("counts a point before the cutoff once however often it is sent, and not as accepted", () => {
    const old = metricPoint({ timeNs: T0 - 10n * S, value: 1 });
    const recent = metricPoint({ timeNs: T0, value: 2 });
    const filter = pointFilter(metricBatch("api", [old, recent]), T0 - S);
    const kept = [...filter.keep([old, recent, { ...old, value: 3 }]), ...filter.keep([{ ...old, value: 4 }, recent])];
    expect(kept.map((point) => point.value)).to.deep.equal([2]);
    expect(filter.tally(1)).to.deep.equal({ accepted: 1, inserted: 1, rejected: 1 });
  });
});

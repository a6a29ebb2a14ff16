import { expect } from "chai";
import { ServiceColours, serviceColour } from "../../../../../client/web/format/service-colour.js";
import { chartSummary } from "../../../../../client/web/views/metrics/chart-summary.js";
import { exemplarRows } from "../../../../../client/web/views/metrics/exemplar-rows.js";
import {
  chartValues,
  firstFilledBucket,
  formatTick,
  formatTicks,
  formatValue,
  groupColours,
  groupLabel,
  hasPoints,
  inLabelOrder,
  isolatedIndices,
  openLastBucket,
  plotDataOf,
} from "../../../../../client/web/views/metrics/series-data.js";
import type { MetricSeriesGroup, MetricSeriesRecord } from "../../../../../shared/query-types.js";

/** Exemplars as [trace id, ISO time]. */
function group(values: Record<string, string | null>, series: (number | null)[], exemplars: [string, string][] = []) {
  return {
    group: values,
    values: series,
    latest: null,
    series: 1,
    resets: 0,
    exemplarTraceIds: exemplars.map(([traceId]) => traceId),
    exemplars: exemplars.map(([traceId, time]) => ({ traceId, time })),
  } satisfies MetricSeriesGroup;
}

function record(groups: MetricSeriesGroup[]): MetricSeriesRecord {
  return {
    name: "http.server.requests",
    type: "sum",
    unit: "{request}",
    temporality: "cumulative",
    monotonic: true,
    agg: "rate",
    valueUnit: "{request}/s",
    step: "1m",
    stepMs: 60_000,
    from: "2026-11-25T12:00:00.000000000Z",
    to: "2026-11-25T12:03:00.000000000Z",
    buckets: ["2026-11-25T12:00:00.000000000Z", "2026-11-25T12:01:00.000000000Z", "2026-11-25T12:02:00.000000000Z"],
    groups,
  };
}

describe("web metrics: a series answer as chart data", () => {
  it("keeps null buckets as gaps, one array per group, x in seconds", () => {
    const answer = record([group({ service: "web" }, [4, 4, null]), group({ service: "checkout" }, [null, 2, null])]);
    const data = plotDataOf(answer);
    expect(data.xs).to.deep.equal([0, 60, 120].map((s) => Date.UTC(2026, 10, 25, 12, 0, 0) / 1000 + s));
    expect(data.ys).to.deep.equal([
      [4, 4, null],
      [null, 2, null],
    ]);
    expect(data.series.map((s) => s.label)).to.deep.equal(["web", "checkout"]);
    expect(data.series[0]?.colour).to.equal(serviceColour("web"));
    expect(hasPoints(answer)).to.equal(true);
    expect(hasPoints(record([group({ service: "web" }, [null, null, null])]))).to.equal(false);
  });

  it("pads a short values array with nulls rather than zeros", () => {
    expect(plotDataOf(record([group({}, [1])])).ys).to.deep.equal([[1, null, null]]);
  });

  it("finds the lone values a line cannot draw, and the first bucket with a value", () => {
    expect(isolatedIndices([null, 1, null, 2, 3, null, 4])).to.deep.equal([1, 6]);
    expect(isolatedIndices([5])).to.deep.equal([0]);
    expect(isolatedIndices([1, 2, null])).to.deep.equal([]);
    expect(
      firstFilledBucket(
        [
          [null, null, 1],
          [null, 2, null],
        ],
        3,
      ),
    ).to.equal(1);
    expect(firstFilledBucket([[null, null]], 2)).to.equal(2);
  });

  it("labels groups by their values in key order, the ungrouped one by the metric", () => {
    expect(groupLabel({ service: "web", "attr.http.route": "/cart" })).to.equal("web · /cart");
    expect(groupLabel({ "attr.queue": null })).to.equal("(none)");
    expect(plotDataOf(record([group({}, [1, 2, 3])])).series[0]?.label).to.equal("http.server.requests");
  });

  it("gives every group of a chart its own colour, the same from one answer to the next", () => {
    const statuses = ["200", "201", "404", "500"];
    const answer = record(
      ["inventory", "checkout", "payments"].flatMap((service) =>
        statuses.map((status) => group({ service, "attr.status": status }, [1, 2, 3])),
      ),
    );
    const colours = groupColours(answer);
    // Labels one character apart (inventory · 200, inventory · 500) included: twelve groups,
    // twelve of the palette's colours, whose hues are chosen far apart (not hues from a hash).
    expect(new Set(colours).size).to.equal(12);
    const palette = new ServiceColours();
    const all = new Set(Array.from({ length: 16 }, (_, i) => palette.colour(`name-${i}`)));
    for (const colour of colours) expect(all.has(colour), colour).to.equal(true);
    expect(groupColours(answer)).to.deep.equal(colours);
    expect(plotDataOf(answer).series.map((s) => s.colour)).to.deep.equal(colours);
    expect(
      exemplarRows({
        ...answer,
        groups: [group({ "attr.k": "v" }, [1, 2, 3], [["t1", answer.buckets[0] as string]])],
      })[0]?.colour,
    ).to.equal(groupColours({ ...answer, groups: [group({ "attr.k": "v" }, [1, 2, 3])] })[0]);
  });

  it("orders the groups by label, whatever order their values give them in the answer", () => {
    const a = record([group({ service: "payments" }, [9, 9, 9]), group({ service: "checkout" }, [1, 1, 1])]);
    const b = { ...a, groups: [...a.groups].reverse() };
    const labels = (r: MetricSeriesRecord) => plotDataOf(inLabelOrder(r)).series.map((s) => s.label);
    expect(labels(a)).to.deep.equal(["checkout", "payments"]);
    expect(labels(b)).to.deep.equal(labels(a));
  });

  it("leaves out of the chart the newest bucket of values that add up while it is still filling", () => {
    // The window ends 10 s into its last minute.
    const open = { ...record([group({ service: "web" }, [60, 60, 10])]), to: "2026-11-25T12:02:10.000000000Z" };
    const increase = { ...open, agg: "increase" as const, valueUnit: "{request}" };
    expect(openLastBucket(increase)).to.equal(true);
    expect(chartValues(plotDataOf(increase))).to.deep.equal([[60, 60, null]]);
    // The data keeps it, for the table, which says it is open.
    expect(plotDataOf(increase).ys).to.deep.equal([[60, 60, 10]]);
    // An exemplar in that bucket sits on the time axis, as in a bucket without a value.
    const marked = {
      ...increase,
      groups: [group({ service: "web" }, [60, 60, 10], [["t1", "2026-11-25T12:02:05.000000000Z"]])],
    };
    expect(exemplarRows(marked)[0]).to.include({ bucket: 2, value: null });
    expect(exemplarRows({ ...marked, agg: "rate" })[0]).to.include({ bucket: 2, value: 10 });
    // A rate's newest bucket is the rate now; a gauge's last its value now, a gauge's sum a level's.
    expect(openLastBucket(open)).to.equal(false);
    expect(openLastBucket({ ...increase, type: "gauge", monotonic: null, temporality: null, agg: "sum" })).to.equal(
      false,
    );
  });

  it("formats values for the table and ticks for the axis", () => {
    expect(formatValue(null)).to.equal("");
    expect(formatValue(2)).to.equal("2");
    expect(formatValue(1 / 3)).to.equal("0.333333");
    expect(formatTick(15_000)).to.equal("15k");
    expect(formatTick(2_500_000)).to.equal("2.5M");
    expect(formatTick(0.125)).to.equal("0.125");
  });

  it("shows whole numbers whole, and keeps a value's integer part", () => {
    // Rounded to six digits, a count of tokens read as another exact count.
    expect(formatValue(1_234_567)).to.equal("1234567");
    expect(formatValue(98_765_432)).to.equal("98765432");
    expect(formatValue(-4_000_001)).to.equal("-4000001");
    expect(formatValue(1_234_567.89)).to.equal("1234568");
    expect(formatValue(12.3456789)).to.equal("12.3457");
    expect(formatValue(0.000123456789)).to.equal("0.000123457");
    expect(formatValue(2.5e21)).to.equal("2.5e+21");
  });

  it("labels axis ticks past a billion with the larger prefixes, then in exponent form", () => {
    expect(formatTick(2.5e9)).to.equal("2.5G");
    expect(formatTick(1.9e15)).to.equal("1.9P");
    expect(formatTick(-3e12)).to.equal("-3T");
    expect(formatTick(4.2e18)).to.equal("4.2E");
    expect(formatTick(3e21)).to.equal("3e+21");
    expect(formatTick(1.5e300)).to.equal("1.5e+300");
  });

  it("gives ticks close to one another as many digits as tell them apart", () => {
    expect(formatTicks([0, 5000, 10_000, 15_000])).to.deep.equal(["0", "5000", "10k", "15k"]);
    expect(formatTicks([2_469_140, 2_469_145, 2_469_150])).to.deep.equal(["2.46914M", "2.469145M", "2.46915M"]);
    expect(formatTicks([1.5e22, 1.6e22])).to.deep.equal(["1.5e+22", "1.6e+22"]);
  });

  it("labels a group whose value is empty, not blank", () => {
    expect(groupLabel({ "attr.gen_ai.token.type": "" })).to.equal("(empty)");
    expect(groupLabel({ service: "web", "attr.k": "" })).to.equal("web · (empty)");
  });

  it("lists exemplars per group, newest first, each trace once, placed in the bucket that holds them", () => {
    const at = (minute: number, second: number) => `2026-11-25T12:0${minute}:${String(second).padStart(2, "0")}.5Z`;
    const rows = exemplarRows(
      record([
        group(
          { service: "web" },
          [1, 2, null],
          [
            ["t1", at(2, 30)],
            ["t2", at(1, 0)],
          ],
        ),
        group(
          { service: "checkout" },
          [5, 6, 7],
          [
            ["t2", at(1, 0)],
            ["t3", at(0, 59)],
            ["t4", "2026-11-25T11:59:59Z"],
          ],
        ),
      ]),
    );
    expect(rows.map((r) => [r.traceId, r.groupLabel, r.rank, r.group, r.bucket, r.value])).to.deep.equal([
      // The open bucket has no value yet: the mark has no line to sit on.
      ["t1", "web", 1, 0, 2, null],
      ["t2", "web", 2, 0, 1, 2],
      ["t3", "checkout", 2, 1, 0, 5],
      // Before the first bucket: listed, not placed.
      ["t4", "checkout", 3, 1, -1, null],
    ]);
    expect(rows[2]?.colour).to.equal(serviceColour("checkout"));
    expect(rows[0]?.timeMs).to.equal(Date.UTC(2026, 10, 25, 12, 2, 30, 500));
  });

  it("summarises the chart for a screen reader", () => {
    const answer = record([group({ service: "a" }, []), group({ service: "b" }, []), group({ service: "c" }, [])]);
    expect(chartSummary(answer, ["service"], "1h")).to.equal(
      "http.server.requests, rate per second by service, 3 series, last 1h, in {request}/s",
    );
    expect(chartSummary({ ...answer, agg: "increase" }, ["attr.http.route"], "15m")).to.equal(
      "http.server.requests, increase per 1m by http.route, 3 series, last 15m, in {request}/s",
    );
  });
});

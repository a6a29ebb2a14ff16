import { expect } from "chai";
import {
  formatMetricValue,
  metricHeading,
  renderMetricDetail,
  renderMetricGroups,
} from "../../../../client/render/metric-groups.js";
import type { MetricDetailRecord, MetricSeriesGroup, MetricSeriesRecord } from "../../../../shared/query-types.js";

const TRACE = "0123456789abcdef0123456789abcdef";

function group(values: (number | null)[], fields: Partial<MetricSeriesGroup> = {}): MetricSeriesGroup {
  const latest = [...values].reverse().find((value) => value !== null) ?? null;
  return { group: {}, values, latest, series: 1, resets: 0, exemplarTraceIds: [], exemplars: [], ...fields };
}

function answer(groups: MetricSeriesGroup[], fields: Partial<MetricSeriesRecord> = {}): MetricSeriesRecord {
  return {
    name: "http.requests",
    type: "sum",
    unit: "{request}",
    temporality: "cumulative",
    monotonic: true,
    agg: "rate",
    valueUnit: "{request}/s",
    step: "1m",
    stepMs: 60_000,
    from: "2026-11-25T06:00:00.000Z",
    to: "2026-11-25T06:04:00.000Z",
    buckets: ["06:00", "06:01", "06:02", "06:03"].map((t) => `2026-11-25T${t}:00.000Z`),
    groups,
    ...fields,
  };
}

/** The control characters of `text` other than its line breaks: what a terminal would act on. */
function controls(text: string): string[] {
  return [...text].filter((ch) => {
    const code = ch.codePointAt(0) ?? 0;
    return code !== 10 && (code < 32 || (code >= 127 && code < 160));
  });
}

describe("metric group table", () => {
  it("formats values with their unit: whole numbers from 1000 up, four significant digits below", () => {
    expect(formatMetricValue(123456.7, "{token}")).to.equal("123457 {token}");
    expect(formatMetricValue(0.123456, "s")).to.equal("0.1235 s");
    expect(formatMetricValue(12.5, "1")).to.equal("12.5");
    expect(formatMetricValue(-3, "")).to.equal("-3");
    expect(formatMetricValue(null, "s")).to.equal("-");
  });

  it("heads the table with the metric, its type and unit, the aggregation, the step and the window", () => {
    expect(metricHeading(answer([]))).to.equal(
      "http.requests (sum, {request})  agg rate  step 1m  2026-11-25T06:00:00.000Z .. 2026-11-25T06:04:00.000Z",
    );
    expect(renderMetricGroups(answer([]), { ascii: false }).split("\n")[1]).to.equal("no points in the window");
  });

  it("gives each grouping key a column, then the latest value, the series and the window's sparkline", () => {
    const text = renderMetricGroups(
      answer([
        group([1, 2, 3, 4], { group: { service: "api", "attr.route": "/a" }, series: 2 }),
        group([4, null, 2, null], { group: { service: "web", "attr.route": null } }),
      ]),
      { ascii: false },
    );
    expect(text.split("\n").slice(1)).to.deep.equal([
      "SERVICE  ATTR.ROUTE  LATEST         SERIES  WINDOW",
      "api      /a          4 {request}/s  2       |▁▃▆█|",
      "web      (none)      2 {request}/s  1       |█ ▁ |",
    ]);
  });

  it("shows one (all) group when the answer is not grouped, in ASCII when asked", () => {
    const text = renderMetricGroups(answer([group([0, 5, 10, null])], { valueUnit: "1" }), { ascii: true });
    expect(text.split("\n").slice(1)).to.deep.equal(["GROUP  LATEST  SERIES  WINDOW", "(all)  10      1       |_-# |"]);
  });

  it("flags counter resets and names an exemplar trace, only when some group has them", () => {
    const text = renderMetricGroups(
      answer([
        group([1, 1], { group: { service: "api" }, resets: 2, exemplarTraceIds: [TRACE, "ff".repeat(16)] }),
        group([1, 1], { group: { service: "web" } }),
      ]),
      { ascii: true },
    );
    const lines = text.split("\n");
    expect(lines[1]).to.equal("SERVICE  LATEST         SERIES  RESETS  EXEMPLAR TRACE                    WINDOW");
    expect(lines[2]).to.equal(`api      1 {request}/s  1       2       ${TRACE}  |--|`);
    expect(lines[3]).to.equal("web      1 {request}/s  1                                                 |--|");
    expect(lines[4]).to.match(/^RESETS: counter restarts/);
  });

  it("adds each group's values up in a TOTAL column where they add up: increases and counts, not rates or levels", () => {
    const values = [3, null, 4, 5];
    const text = renderMetricGroups(answer([group(values)], { agg: "increase", valueUnit: "{request}" }), {
      ascii: true,
    });
    expect(text.split("\n").slice(1)).to.deep.equal([
      "GROUP  LATEST       TOTAL         SERIES  WINDOW",
      "(all)  5 {request}  12 {request}  1       |_ -#|",
      "TOTAL: the buckets' sum, from 2026-11-25T06:00:00.000Z; groups with the largest first",
      "LATEST: the newest bucket with a value (the newest of all, still open, holds only what came so far)",
    ]);
    // With nothing in the newest buckets, LATEST is an older bucket's, as its line says.
    const quiet = renderMetricGroups(answer([group([3, 4, null, null])], { agg: "increase", valueUnit: "{request}" }), {
      ascii: true,
    }).split("\n");
    expect(quiet[2]).to.match(/^\(all\) {2}4 \{request\}/);
    expect(quiet.at(-1)).to.equal(
      "LATEST: the newest bucket with a value (the newest of all, still open, holds only what came so far)",
    );
    const header = (fields: Partial<MetricSeriesRecord>) =>
      renderMetricGroups(answer([group(values)], fields), { ascii: true }).split("\n")[1];
    for (const adds of [
      { agg: "count", type: "histogram" },
      { agg: "sum", type: "histogram" },
      { agg: "sum", type: "sum", monotonic: true },
    ] as const) {
      expect(header(adds), JSON.stringify(adds)).to.include("TOTAL");
    }
    // A delta up-down sum's changes add up.
    expect(header({ agg: "sum", type: "sum", monotonic: false, temporality: "delta" })).to.include("TOTAL");
    for (const levels of [
      { agg: "rate" },
      { agg: "sum", type: "gauge", monotonic: null, temporality: null },
      { agg: "sum", type: "sum", monotonic: false },
      { agg: "p95", type: "histogram" },
      { agg: "avg", type: "histogram" },
    ] as const) {
      expect(header(levels), JSON.stringify(levels)).not.to.include("TOTAL");
    }
  });

  it("limits the sparkline to the width given", () => {
    const values = Array.from({ length: 300 }, (_, i) => i % 7);
    const row = renderMetricGroups(answer([group(values)]), { ascii: false, width: 12 }).split("\n")[2] as string;
    expect(/\|(.*)\|$/.exec(row)?.[1]).to.have.length(12);
  });

  it("makes escape sequences in group values harmless", () => {
    const text = renderMetricGroups(answer([group([1], { group: { service: "\u001b[31mx" } })]), { ascii: true });
    expect(text).to.include("\\x1b[31mx");
    expect(text).to.not.include("\u001b");
  });

  it("makes escape sequences harmless in the heading and the description: name, unit, description, services", () => {
    const esc = "\u001b]0;title\u0007";
    const heading = renderMetricGroups(answer([group([1])], { name: `m${esc}`, unit: "ms\u001b[2J" }), { ascii: true });
    expect(heading.split("\n")[0]).to.include("m\\x1b]0;title\\x07").and.include("ms\\x1b[2J");
    expect(controls(heading)).to.deep.equal([]);
    const detail: MetricDetailRecord = {
      name: `m${esc}`,
      type: "gauge",
      unit: "ms\u001b[31m",
      description: "line one\nFAKE: line two\u001b[2K",
      temporality: null,
      monotonic: null,
      services: ["evil\u001b]0;pwned\u0007svc"],
      seriesCount: 1,
      pointCount: 1,
      firstTime: "2026-11-25T06:00:00.000Z",
      lastTime: "2026-11-25T06:05:00.000Z",
      metadata: null,
      attributes: [],
    };
    const lines = renderMetricDetail(detail).split("\n");
    // The description's newline cannot forge a line of its own.
    expect(lines).to.have.length(5);
    expect(lines[1]).to.equal("line one\\x0aFAKE: line two\\x1b[2K");
    expect(controls(lines.join("\n"))).to.deep.equal([]);
    expect(lines[2]).to.include("evil\\x1b]0;pwned\\x07svc");
  });

  it("describes a metric: identity, then each attribute key with its values and series counts", () => {
    const detail: MetricDetailRecord = {
      name: "gen_ai.client.token.usage",
      type: "histogram",
      unit: "{token}",
      description: "Tokens used",
      temporality: "delta",
      monotonic: null,
      services: ["agent"],
      seriesCount: 2,
      pointCount: 10,
      firstTime: "2026-11-25T06:00:00.000Z",
      lastTime: "2026-11-25T06:05:00.000Z",
      metadata: null,
      attributes: [
        {
          key: "gen_ai.token.type",
          values: [
            { value: "input", series: 1 },
            { value: "output", series: 1 },
          ],
          more: false,
        },
        { key: "model", values: [{ value: "m1", series: 2 }], more: true },
      ],
    };
    expect(renderMetricDetail(detail).split("\n")).to.deep.equal([
      "gen_ai.client.token.usage (histogram, {token}, delta)",
      "Tokens used",
      "services: agent  series: 2  points: 10",
      "first: 2026-11-25T06:00:00.000Z  last: 2026-11-25T06:05:00.000Z",
      "GROUP BY                VALUES (SERIES)",
      "attr.gen_ai.token.type  input (1), output (1)",
      "attr.model              m1 (2), ...",
    ]);
    expect(
      renderMetricDetail({ ...detail, attributes: [], type: "sum", monotonic: true })
        .split("\n")
        .at(-1),
    ).to.equal("no point attributes");
  });
});

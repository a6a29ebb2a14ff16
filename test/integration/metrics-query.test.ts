import { expect } from "chai";
import { apiSchema } from "../../shared/record-schemas.js";
import { nsToIso } from "../../shared/time.js";
import { type CollectorProcess, startCollectorProcess } from "../helpers/collector-process.js";
import { http, postJson } from "../helpers/http.js";
import { compileSchema } from "../helpers/schema-validator.js";

const MS = 1_000_000n;
const S = 1000n * MS;
const TRACE = "5b8efff798038103d269b633813fc60c";

const attr = (key: string, value: string) => ({ key, value: { stringValue: value } });

interface CounterPoint {
  timeNs: bigint;
  startNs: bigint;
  value: number;
}

/** Token counters: `input` restarts (a new start time) halfway; `output` grows steadily. */
function counterPoints(baseNs: bigint): Record<string, CounterPoint[]> {
  const input = Array.from({ length: 24 }, (_, k) =>
    k < 12
      ? { timeNs: baseNs + BigInt(10 * k) * S, startNs: baseNs - S, value: 100 * (k + 1) }
      : { timeNs: baseNs + BigInt(10 * k) * S, startNs: baseNs + 115n * S, value: 7 * (k - 11) },
  );
  const output = Array.from({ length: 24 }, (_, k) => ({
    timeNs: baseNs + BigInt(10 * k) * S,
    startNs: baseNs - S,
    value: 20 * (k + 1),
  }));
  return { input, output };
}

/**
 * Each point's increase by the counter rules: the first point is the baseline (0), its series
 * having started before the collector did; a new start or a drop counts whole.
 */
function increases(points: CounterPoint[]): { timeNs: bigint; increase: number }[] {
  return points.map((p, i) => {
    const prev = points[i - 1];
    if (!prev) return { timeNs: p.timeNs, increase: 0 };
    const reset = p.startNs !== prev.startNs || p.value < prev.value;
    return { timeNs: p.timeNs, increase: reset ? p.value : p.value - prev.value };
  });
}

/** Expected increases per answer bucket (bucket starts in ISO, step in ms). */
function expectedBuckets(points: CounterPoint[], buckets: string[], stepMs: number): (number | null)[] {
  const starts = buckets.map((b) => BigInt(Date.parse(b)) * MS);
  const stepNs = BigInt(stepMs) * MS;
  return starts.map((start) => {
    const inside = increases(points).filter((p) => p.timeNs >= start && p.timeNs < start + stepNs);
    return inside.length === 0 ? null : inside.reduce((a, p) => a + p.increase, 0);
  });
}

/** The changes of a delta up-down counter, one a minute. */
const SESSION_CHANGES = [5, -2, 3, -4];

function metricsRequest(baseNs: bigint) {
  const counters = counterPoints(baseNs);
  return {
    resourceMetrics: [
      {
        resource: { attributes: [attr("service.name", "agent")] },
        scopeMetrics: [
          {
            scope: { name: "agent-metrics" },
            metrics: [
              {
                name: "agent.tokens",
                unit: "{token}",
                description: "Tokens used",
                sum: {
                  aggregationTemporality: 2,
                  isMonotonic: true,
                  dataPoints: Object.entries(counters).flatMap(([type, points]) =>
                    points.map((p) => ({
                      attributes: [attr("token.type", type)],
                      startTimeUnixNano: String(p.startNs),
                      timeUnixNano: String(p.timeNs),
                      asInt: String(p.value),
                    })),
                  ),
                },
              },
              {
                name: "op.duration",
                unit: "s",
                histogram: {
                  aggregationTemporality: 1,
                  // Two series at the same time: both land in one bucket wherever the buckets fall.
                  dataPoints: [
                    { host: "a", counts: ["2", "6", "2", "0"], sum: 25 },
                    { host: "b", counts: ["0", "4", "4", "2"], sum: 60 },
                  ].map((h) => ({
                    attributes: [attr("host", h.host)],
                    startTimeUnixNano: String(baseNs),
                    timeUnixNano: String(baseNs + 59n * S),
                    count: String(h.counts.reduce((a, c) => a + Number(c), 0)),
                    sum: h.sum,
                    bucketCounts: h.counts,
                    explicitBounds: [1, 5, 10],
                    exemplars:
                      h.host === "b" ? [{ timeUnixNano: String(baseNs + 50n * S), asDouble: 12, traceId: TRACE }] : [],
                  })),
                },
              },
              {
                name: "queue.depth",
                gauge: { dataPoints: [{ timeUnixNano: String(baseNs + 30n * S), asDouble: 4 }] },
              },
              {
                // An up-down counter exported as delta: each point a change of the level.
                name: "sessions.open",
                unit: "{session}",
                sum: {
                  aggregationTemporality: 1,
                  isMonotonic: false,
                  dataPoints: SESSION_CHANGES.map((change, k) => ({
                    startTimeUnixNano: String(baseNs + BigInt(60 * k) * S),
                    timeUnixNano: String(baseNs + BigInt(60 * (k + 1) - 1) * S),
                    asInt: String(change),
                  })),
                },
              },
            ],
          },
        ],
      },
    ],
  };
}

describe("metrics query API (obsd over HTTP)", function () {
  this.timeout(30_000);
  let collector: CollectorProcess;
  let baseNs: bigint;

  before(async () => {
    collector = await startCollectorProcess();
    // Four minutes of points ending a few seconds ago.
    baseNs = BigInt(Date.now()) * MS - 245n * S;
    const answer = await postJson(`${collector.url}/v1/metrics`, metricsRequest(baseNs));
    expect(answer.status, answer.body.toString()).to.equal(200);
  });
  after(async () => {
    await collector.stop();
  });

  const get = async (path: string) => http(`${collector.url}${path}`);
  const valid = (name: string, value: unknown) => {
    const validate = compileSchema(apiSchema(name));
    expect(validate(value), JSON.stringify(validate.errors)).to.equal(true);
  };

  it("lists the metrics seen in the window", async () => {
    const answer = await get("/api/metrics?lookback=15m");
    expect(answer.status).to.equal(200);
    const { data } = answer.json<{ data: { name: string }[] }>();
    expect(data.map((m) => m.name)).to.deep.equal(["agent.tokens", "op.duration", "queue.depth", "sessions.open"]);
    for (const m of data) valid("metric-summary", m);
    expect(data[0]).to.deep.include({ type: "sum", temporality: "cumulative", monotonic: true, seriesCount: 2 });
    expect(data[0]).to.deep.include({ pointCount: 48, services: ["agent"] });
  });

  it("pages the metrics with its own cursors, each metric once and in name order", async () => {
    const names: string[] = [];
    let cursor: string | null = null;
    for (let page = 0; page < 5; page++) {
      const query: string = cursor === null ? "" : `&cursor=${encodeURIComponent(cursor)}`;
      const answer = await get(`/api/metrics?lookback=15m&limit=1${query}`);
      expect(answer.status, answer.body.toString()).to.equal(200);
      const body = answer.json<{ data: { name: string }[]; meta: { nextCursor: string | null } }>();
      names.push(...body.data.map((m) => m.name));
      cursor = body.meta.nextCursor;
      if (cursor === null) break;
    }
    expect(names).to.deep.equal(["agent.tokens", "op.duration", "queue.depth", "sessions.open"]);
  });

  it("answers a counter's increases per bucket and group, from the points and from the 60 s rollups alike", async () => {
    const counters = counterPoints(baseNs);
    for (const step of ["10s", "1m"]) {
      const answer = await get(
        `/api/metrics/series?name=agent.tokens&agg=increase&groupBy=attr.token.type&step=${step}`,
      );
      expect(answer.status, answer.body.toString()).to.equal(200);
      const { data } = answer.json();
      valid("metric-series", data);
      for (const type of ["input", "output"]) {
        const group = data.groups.find((g: { group: Record<string, string> }) => g.group["attr.token.type"] === type);
        expect(group.values, `${type} at ${step}`).to.deep.equal(
          expectedBuckets(counters[type]!, data.buckets, data.stepMs),
        );
      }
      const input = data.groups.find((g: { group: Record<string, string> }) => g.group["attr.token.type"] === "input");
      expect(input.resets).to.equal(1);
    }
  });

  it("groups by several keys given as a repeated parameter", async () => {
    const answer = await get("/api/metrics/series?name=agent.tokens&groupBy=service&groupBy=attr.token.type&agg=rate");
    expect(answer.status, answer.body.toString()).to.equal(200);
    const { data } = answer.json();
    expect(data.groups.map((g: { group: unknown }) => g.group)).to.have.deep.members([
      { service: "agent", "attr.token.type": "input" },
      { service: "agent", "attr.token.type": "output" },
    ]);
    expect(data.valueUnit).to.equal("{token}/s");
  });

  it("answers a histogram's p95 interpolated within its buckets, with the exemplar's trace", async () => {
    const answer = await get("/api/metrics/series?name=op.duration&agg=p95&step=5m&lookback=5m");
    expect(answer.status, answer.body.toString()).to.equal(200);
    const { data } = answer.json();
    const values = data.groups[0].values.filter((v: number | null) => v !== null);
    // Both series in one bucket: [2, 10, 6, 2] over (0,1], (1,5], (5,10], (10,+Inf); rank 19 of 20 is in +Inf.
    const merged = [2, 10, 6, 2];
    expect(values).to.deep.equal([10]);
    expect(merged.reduce((a, b) => a + b)).to.equal(20);
    expect(data.groups[0].exemplarTraceIds).to.deep.equal([TRACE]);
    // The exemplar's place in time: its point's, so a chart can mark it in the bucket that holds it.
    expect(data.groups[0].exemplars).to.deep.equal([{ traceId: TRACE, time: nsToIso(baseNs + 59n * S) }]);
    const p50 = (await get("/api/metrics/series?name=op.duration&agg=p50&step=5m&lookback=5m")).json().data;
    // Rank 10: 2 below, 8 of the 10 in (1, 5].
    expect(p50.groups[0].values.filter((v: number | null) => v !== null)).to.deep.equal([1 + 4 * (8 / 10)]);
  });

  it("describes a metric with its attribute values and series counts", async () => {
    const answer = await get("/api/metrics/describe?name=agent.tokens");
    expect(answer.status).to.equal(200);
    const { data } = answer.json();
    valid("metric-detail", data);
    expect(data.attributes).to.deep.equal([
      {
        key: "token.type",
        values: [
          { value: "input", series: 1 },
          { value: "output", series: 1 },
        ],
        more: false,
      },
    ]);
  });

  it("refuses an unknown metric, an agg its type does not take and a step below a second", async () => {
    const unknown = await get("/api/metrics/series?name=nope");
    expect(unknown.status).to.equal(404);
    expect((await get("/api/metrics/describe?name=nope")).status).to.equal(404);
    const agg = await get("/api/metrics/series?name=queue.depth&agg=rate");
    expect(agg.status).to.equal(400);
    expect(agg.body.toString()).to.contain("use one of last, avg, min, max, sum");
    expect((await get("/api/metrics/series?name=queue.depth&step=500ms")).status).to.equal(400);
  });

  it("adds up a delta up-down sum's changes as a counter's increases: its latest point is no level", async () => {
    const answer = await get("/api/metrics/series?name=sessions.open&agg=increase&step=1m&lookback=10m");
    expect(answer.status, answer.body.toString()).to.equal(200);
    const data = answer.json().data;
    expect(data).to.include({ type: "sum", monotonic: false, temporality: "delta", agg: "increase" });
    const values = (data.groups[0].values as (number | null)[]).filter((value) => value !== null);
    expect(values).to.deep.equal(SESSION_CHANGES);
    expect((await get("/api/metrics/series?name=sessions.open")).json().data.agg).to.equal("rate");
    const last = await get("/api/metrics/series?name=sessions.open&agg=last");
    expect(last.status).to.equal(400);
    expect(last.body.toString()).to.contain("use one of rate, increase, sum");
  });

  it("counts facets of metrics in series", async () => {
    const answer = await get("/api/facets?type=metrics&field=attribute_values&key=token.type");
    expect(answer.status, answer.body.toString()).to.equal(200);
    expect(answer.json().data).to.deep.equal([
      { value: "input", count: 1 },
      { value: "output", count: 1 },
    ]);
  });
});

describe("a metric name sent as a cumulative counter by one service and a delta one by another (obsd over HTTP)", function () {
  this.timeout(30_000);
  let collector: CollectorProcess;
  let baseNs: bigint;
  /** Per minute: `cum` adds 60 (its cumulative value grows by 60), `del` exports its 30 a minute as a delta. */
  const MINUTES = 6;

  before(async () => {
    collector = await startCollectorProcess();
    baseNs = ((BigInt(Date.now()) * MS) / (60n * S)) * (60n * S) - BigInt(MINUTES) * 60n * S;
    const sum = (
      service: string,
      temporality: number,
      points: { startNs: bigint; timeNs: bigint; value: number }[],
    ) => ({
      resource: { attributes: [attr("service.name", service)] },
      scopeMetrics: [
        {
          metrics: [
            {
              name: "jobs.done",
              unit: "{job}",
              sum: {
                aggregationTemporality: temporality,
                isMonotonic: true,
                dataPoints: points.map((p) => ({
                  startTimeUnixNano: String(p.startNs),
                  timeUnixNano: String(p.timeNs),
                  asInt: String(p.value),
                })),
              },
            },
          ],
        },
      ],
    });
    const minute = (k: number) => baseNs + BigInt(k) * 60n * S + 30n * S;
    const request = {
      resourceMetrics: [
        // Started before the collector: its first point is the baseline.
        sum(
          "cum",
          2,
          Array.from({ length: MINUTES }, (_, k) => ({
            startNs: baseNs - 3600n * S,
            timeNs: minute(k),
            value: 1000 + 60 * k,
          })),
        ),
        sum(
          "del",
          1,
          Array.from({ length: MINUTES }, (_, k) => ({ startNs: minute(k) - 60n * S, timeNs: minute(k), value: 30 })),
        ),
      ],
    };
    const answer = await postJson(`${collector.url}/v1/metrics`, request);
    expect(answer.status, answer.body.toString()).to.equal(200);
  });
  after(async () => {
    await collector.stop();
  });

  it("answers both services' increases, from the points and from the rollups, where it answered the newest identity's alone", async () => {
    for (const step of ["10s", "1m"]) {
      const answer = await http(
        `${collector.url}/api/metrics/series?name=jobs.done&agg=increase&groupBy=service&lookback=15m&step=${step}`,
      );
      expect(answer.status, answer.body.toString()).to.equal(200);
      const groups = answer.json().data.groups as { group: { service: string }; values: (number | null)[] }[];
      const totals = Object.fromEntries(
        groups.map((g) => [g.group.service, g.values.reduce<number>((sum, value) => sum + (value ?? 0), 0)]),
      );
      // cum: its first point the baseline, then 60 a minute; del: every point whole.
      expect(totals, step).to.deep.equal({ cum: 60 * (MINUTES - 1), del: 30 * MINUTES });
    }
    // Ungrouped, one group of both, and a rate over the newest five minutes of both.
    const all = await http(`${collector.url}/api/metrics/series?name=jobs.done&agg=increase&lookback=15m&step=1m`);
    const [group] = all.json().data.groups as { values: (number | null)[]; series: number }[];
    expect(group?.series).to.equal(2);
    expect(group?.values.reduce<number>((sum, value) => sum + (value ?? 0), 0)).to.equal(
      60 * (MINUTES - 1) + 30 * MINUTES,
    );
  });
});

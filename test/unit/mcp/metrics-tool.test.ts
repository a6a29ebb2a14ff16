import { expect } from "chai";
import { failureText } from "../../../daemon/mcp/mcp-tool-call.js";
import { MIN_BUCKETS } from "../../../daemon/mcp/tools/metric-series-fit.js";
import { describeMetric, listMetrics, queryMetric } from "../../../daemon/mcp/tools/metrics.js";
import { snakeCase } from "../../../daemon/mcp/tools/snake-case.js";
import { decodeMetricRequest } from "../../../daemon/otlp/decode-request.js";
import {
  depth,
  EXEMPLAR_TRACE,
  INPUT_PER_POINT,
  OUTPUT_PER_POINT,
  POINT_EVERY_MS,
  POINTS,
  QUEUES,
  writeMetricData,
} from "../../helpers/mcp-metric-data.js";
import { callTool, type StoreApi, storeApi, TOOL_BASE_URL } from "../../helpers/mcp-tools.js";
import { metricBatch, metricPoint } from "../../helpers/metric-points.js";
import { type TestStore, testStore } from "../../helpers/store.js";

const MS = 1_000_000n;
const NOW_MS = 1_800_000_000_000;
const NOW = BigInt(NOW_MS) * MS;
const queue = (q: number) => `q${String(q).padStart(2, "0")}`;
/** Point indexes per one-minute bucket. */
const PER_MINUTE = 60_000 / POINT_EVERY_MS;
/** The window's buckets of a step: the window ends now, and the bucket starting now has no point yet. */
const bucketsOf = (stepMs: number) => (15 * 60_000) / stepMs + 1;

describe("MCP list_metrics, query_metric and describe_metric", () => {
  let store: TestStore;
  let query: StoreApi;
  beforeEach(() => {
    store = testStore();
    writeMetricData(store, NOW);
    query = storeApi(store.path);
    query.setNow(NOW);
  });
  afterEach(() => {
    query.close();
    store.close();
  });

  it("lists metrics by name, narrowed by service and name substring, with query_metric next", async () => {
    const all = await callTool(listMetrics, {}, query.api);
    expect(all.structured.metrics.map((m) => [m.name, m.type, m.services, m.series_count])).to.deep.equal([
      ["queue.depth", "gauge", ["worker"], QUEUES],
      ["tokens", "sum", ["api"], 2],
    ]);
    expect(all.structured.next[0]).to.deep.equal({
      tool: "query_metric",
      arguments: { name: "queue.depth", lookback: "15m" },
      why: "the values of queue.depth",
    });
    const byName = await callTool(listMetrics, { name: "tok" }, query.api);
    expect(byName.structured.metrics.map((m) => m.name)).to.deep.equal(["tokens"]);
    const byService = await callTool(listMetrics, { service: "worker" }, query.api);
    expect(byService.structured.metrics.map((m) => m.name)).to.deep.equal(["queue.depth"]);
    // The continuation carries the API's cursor. (Following it is not tested here: over a real
    // store /api/metrics refuses its own cursors, whose last id is a metric name, not hex.)
    const first = await callTool(listMetrics, { limit: 1 }, query.api);
    expect(first.structured.metrics.map((m) => m.name)).to.deep.equal(["queue.depth"]);
    expect(first.structured.truncated).to.equal(true);
    expect(first.structured.continuation?.tool).to.equal("list_metrics");
    expect(first.structured.continuation?.arguments).to.have.keys(["limit", "cursor"]);
  });

  it("answers each group's latest value and newest buckets, largest first", async () => {
    const { structured, summary } = await callTool(
      queryMetric,
      { name: "queue.depth", group_by: ["attr.queue"], step: "1m" },
      query.api,
    );
    expect(structured.groups.map((g) => g.group)).to.deep.equal(
      Array.from({ length: QUEUES }, (_, q) => ({ "attr.queue": queue(QUEUES - 1 - q) })),
    );
    const top = structured.groups[0];
    expect(top?.latest).to.equal(depth(QUEUES - 1, POINTS - 1));
    // agg last: each minute's newest point; the bucket starting now, which no point has
    // reached yet, the newest one's value (carried: it is the queue's depth now).
    expect(top?.values).to.deep.equal(
      Array.from({ length: bucketsOf(60_000) }, (_, m) =>
        depth(QUEUES - 1, Math.min(m * PER_MINUTE + PER_MINUTE - 1, POINTS - 1)),
      ),
    );
    expect(structured).to.deep.include({ agg: "last", step_ms: 60_000, dropped_buckets: 0, truncated: false });
    expect(structured.first_bucket).to.equal(
      new Date(NOW_MS - 15 * 60_000).toISOString().replace(".000Z", ".000000000Z"),
    );
    expect(structured.next.map((call) => call.tool)).to.deep.equal(["describe_metric"]);
    expect(summary).to.match(/^"queue\.depth" \(last, step 1m\): 12 groups, the largest latest \d+ "\{item\}"\.$/);
  });

  it("flags counter resets and names exemplar traces, with the exemplar's trace next", async () => {
    const { structured } = await callTool(
      queryMetric,
      { name: "tokens", group_by: ["attr.gen_ai.token.type"], agg: "increase", step: "1m" },
      query.api,
    );
    const [input, output] = structured.groups;
    expect(input?.group).to.deep.equal({ "attr.gen_ai.token.type": "input" });
    expect(input?.latest).to.equal(INPUT_PER_POINT * PER_MINUTE);
    expect(input?.resets).to.equal(0);
    expect(input?.exemplar_trace_ids).to.deep.equal([EXEMPLAR_TRACE]);
    expect(output?.latest).to.equal(OUTPUT_PER_POINT * PER_MINUTE);
    expect(output?.resets).to.equal(1);
    expect(structured.next[0]).to.deep.equal({
      tool: "get_trace_outline",
      arguments: { trace_id: EXEMPLAR_TRACE },
      why: "a trace behind tokens (an exemplar)",
    });
  });

  it("answers the window's total of each group where the values add up, and says the newest bucket is open", async () => {
    const { structured, summary } = await callTool(
      queryMetric,
      { name: "tokens", group_by: ["attr.gen_ai.token.type"], agg: "increase", step: "10s", max_bytes: 1024 },
      query.api,
    );
    const answer = await query.api.metricSeries({
      name: "tokens",
      groupBy: ["attr.gen_ai.token.type"],
      agg: "increase",
      step: "10s",
    });
    // Over every bucket of the window, those left out to fit max_bytes too.
    expect(structured.dropped_buckets).to.be.greaterThan(0);
    for (const group of structured.groups) {
      const whole = answer.data.groups.find(
        (g) => g.group["attr.gen_ai.token.type"] === group.group["attr.gen_ai.token.type"],
      );
      const total = whole?.values.reduce<number>((sum, value) => sum + (value ?? 0), 0);
      expect(group.total).to.equal(total);
    }
    const top = structured.groups[0];
    const open = top?.values.at(-1);
    expect(summary).to.include(
      `the largest total ${top?.total} "{token}" over the answer's buckets (its newest, still open: ${open === null ? "nothing yet" : `${open} so far`})`,
    );
    // The window ends at a bucket's start, where no point is yet: `latest` is the bucket before,
    // and the summary names the open bucket's own nothing.
    const empty = await callTool(queryMetric, { name: "tokens", agg: "increase", step: "10s" }, query.api);
    expect(empty.structured.groups[0]?.values.at(-1)).to.equal(null);
    expect(empty.structured.groups[0]?.latest).to.not.equal(null);
    expect(empty.summary).to.include("(its newest, still open: nothing yet)");
    // A level has no total; a rate neither.
    const gauge = await callTool(queryMetric, { name: "queue.depth", step: "1m" }, query.api);
    expect(gauge.structured.groups[0]).to.not.have.property("total");
  });

  it("suggests where to look when the answer is empty, not the same question again", async () => {
    const { structured, summary } = await callTool(queryMetric, { name: "tokens", service: "nowhere" }, query.api);
    expect(structured.groups).to.deep.equal([]);
    expect(summary).to.match(/^"tokens" has no points in the window/);
    expect(structured.next.map((call) => [call.tool, call.arguments])).to.deep.equal([
      ["list_services", { lookback: "15m" }],
      ["list_metrics", { name: "tokens", lookback: "15m" }],
    ]);
  });

  it("says which group_by key no series carries, with describe_metric first", async () => {
    const { structured, summary } = await callTool(
      queryMetric,
      { name: "tokens", group_by: ["service", "attr.gen_ai.tokn.type"] },
      query.api,
    );
    expect(structured.groups.map((g) => g.group["attr.gen_ai.tokn.type"])).to.deep.equal([null]);
    expect(summary).to.include('no series carries "attr.gen_ai.tokn.type" (describe_metric lists the keys)');
    expect(structured.next[0]?.tool).to.equal("describe_metric");
  });

  it("says the summary's value to six significant digits, as the answer's values", async () => {
    const gauge = metricPoint({
      name: "load",
      kind: "gauge",
      temporality: 0,
      monotonic: false,
      timeNs: NOW - 5_000n * MS,
      value: 3.5199509011976855,
    });
    store.writer.transaction(() => store.writer.writeMetrics(metricBatch("api", [gauge]), NOW));
    store.writer.writeHeld();
    const { structured, summary } = await callTool(queryMetric, { name: "load", step: "1m" }, query.api);
    expect(structured.groups[0]?.latest).to.equal(3.51995);
    expect(summary).to.match(/the largest latest 3\.51995\.$/);
  });

  it("answers whole numbers and totals exactly, as /api/metrics/series does, and trims only long fractions", async () => {
    const gauge = metricPoint({
      name: "big.gauge",
      kind: "gauge",
      temporality: 0,
      monotonic: false,
      timeNs: NOW - 5_000n * MS,
      value: 987654321,
    });
    const counter = metricPoint({ name: "big.counter", temporality: 1, timeNs: NOW - 5_000n * MS, value: 123456789 });
    const fraction = metricPoint({
      name: "big.fraction",
      kind: "gauge",
      temporality: 0,
      monotonic: false,
      timeNs: NOW - 5_000n * MS,
      value: 123456.789012,
    });
    store.writer.transaction(() => store.writer.writeMetrics(metricBatch("api", [gauge, counter, fraction]), NOW));
    store.writer.writeHeld();
    const last = await callTool(queryMetric, { name: "big.gauge", step: "1m" }, query.api);
    expect(last.structured.groups[0]?.latest).to.equal(987654321);
    expect(last.summary).to.match(/the largest latest 987654321\.$/);
    const api = (await query.api.metricSeries({ name: "big.gauge", step: "1m" })).data.groups[0];
    expect(last.structured.groups[0]?.values).to.deep.equal(api?.values);
    const increase = await callTool(queryMetric, { name: "big.counter", agg: "increase", step: "1m" }, query.api);
    expect(increase.structured.groups[0]?.latest).to.equal(123456789);
    expect(increase.structured.groups[0]?.total).to.equal(123456789);
    expect(increase.summary).to.include("the largest total 123456789 over");
    // Every digit of the whole part is kept, and a decimal: six significant digits would read 123457.
    const fractional = await callTool(queryMetric, { name: "big.fraction", step: "1m" }, query.api);
    expect(fractional.structured.groups[0]?.latest).to.equal(123456.8);
  });

  it("drops the oldest buckets first to fit max_bytes, then the smallest groups", async () => {
    const args = { name: "queue.depth", group_by: ["attr.queue"], step: "10s" };
    const cut = await callTool(queryMetric, { ...args, max_bytes: 4096 }, query.api);
    const total = bucketsOf(POINT_EVERY_MS);
    const kept = total - cut.structured.dropped_buckets;
    expect(cut.structured.dropped_buckets).to.be.greaterThan(0);
    expect(kept).to.be.at.least(MIN_BUCKETS);
    expect(cut.structured.groups).to.have.length(QUEUES);
    expect(cut.structured.groups[0]?.values).to.deep.equal(
      Array.from({ length: kept }, (_, i) => depth(QUEUES - 1, Math.min(total - kept + i, POINTS - 1))),
    );
    const firstMs = NOW_MS - 15 * 60_000 + (total - kept) * POINT_EVERY_MS;
    expect(Date.parse(cut.structured.first_bucket ?? "")).to.equal(firstMs);
    expect(cut.structured.truncated).to.equal(true);
    expect(cut.structured.continuation?.arguments).to.deep.equal({ ...args, max_bytes: 32768 });
    expect(cut.summary).to.match(new RegExp(`; ${total - kept} oldest buckets left out to fit max_bytes\\.$`));

    const tight = await callTool(queryMetric, { ...args, max_bytes: 1024 }, query.api);
    expect(tight.structured.groups.length).to.be.within(1, QUEUES - 1);
    expect(tight.structured.groups[0]?.values).to.have.length(MIN_BUCKETS);
    expect(tight.structured.groups[0]?.group).to.deep.equal({ "attr.queue": queue(QUEUES - 1) });

    const wide = await callTool(queryMetric, { ...args, max_bytes: 32768 }, query.api);
    expect(wide.structured.dropped_buckets).to.equal(0);
    expect(wide.structured.groups[0]?.values).to.have.length(total);
  });

  it("describes a metric's identity and attribute values, with a grouped query next", async () => {
    const { structured, summary } = await callTool(describeMetric, { name: "queue.depth" }, query.api);
    expect(structured.metric).to.deep.include({
      name: "queue.depth",
      type: "gauge",
      unit: "{item}",
      series_count: QUEUES,
    });
    // Every field of the API's record, named in snake_case (the attributes answered beside it).
    const { attributes: _, ...identity } = (await query.api.describeMetric({ name: "queue.depth" })).data;
    expect(Object.keys(structured.metric).sort()).to.deep.equal(Object.keys(identity).map(snakeCase).sort());
    expect(structured.attributes).to.have.length(1);
    expect(structured.attributes[0]?.key).to.equal("queue");
    expect(structured.attributes[0]?.values.map((v) => v.value).sort()).to.deep.equal(
      Array.from({ length: QUEUES }, (_, q) => queue(q)),
    );
    expect(structured.attributes[0]?.values.every((v) => v.series === 1)).to.equal(true);
    expect(structured.next[1]).to.deep.equal({
      tool: "query_metric",
      arguments: { name: "queue.depth", group_by: ["attr.queue"] },
      why: "the values of queue.depth per queue",
    });
    expect(summary).to.equal(`"queue.depth": a gauge in "{item}" from "worker", ${QUEUES} series, 1 attribute keys.`);
  });

  it("passes the API's refusals on: an unknown metric, an agg its type does not take", async () => {
    const missing = await describeMetric
      .run({ name: "nope" }, { api: query.api, baseUrl: TOOL_BASE_URL, maxBytes: 16384 })
      .catch((e: unknown) => e);
    expect((missing as { code?: string }).code).to.equal("not_found");
    const wrong = await queryMetric
      .run({ name: "tokens", agg: "p95" }, { api: query.api, baseUrl: TOOL_BASE_URL, maxBytes: 16384 })
      .catch((e: unknown) => e);
    expect((wrong as { code?: string }).code).to.equal("invalid_argument");
    expect((wrong as Error).message).to.match(/rate, increase, sum/);
    // What a metric tool does not find is a metric: the hint leads to list_metrics, not to ids.
    const text = failureText("describe_metric", missing);
    expect(text).to.include("list_metrics").and.not.include("search_traces");
    expect(failureText("get_trace_outline", missing)).to.include("search_traces");
  });

  it("keeps every attribute key within max_bytes, with fewer values each, where a key of long values would crowd them out", async () => {
    // 20 series whose first key (most series) has a long value each, and 30 more short keys.
    const text = (key: string, value: string) => ({ key, value: { stringValue: value } });
    const wide = {
      resourceMetrics: [
        {
          resource: { attributes: [text("service.name", "wide")] },
          scopeMetrics: [
            {
              scope: { name: "test" },
              metrics: [
                {
                  name: "wide.gauge",
                  gauge: {
                    dataPoints: Array.from({ length: 20 }, (_, i) => ({
                      timeUnixNano: (NOW - 60_000n * MS).toString(),
                      asInt: String(i),
                      attributes: [
                        text("a.long", `${String(i).padStart(2, "0")}${"x".repeat(300)}`),
                        ...Array.from({ length: 30 }, (_, k) => text(`k${String(k).padStart(2, "0")}`, String(i % 2))),
                      ],
                    })),
                  },
                },
              ],
            },
          ],
        },
      ],
    };
    store.writer.transaction(() =>
      store.writer.writeMetrics(decodeMetricRequest(Buffer.from(JSON.stringify(wide)), "json"), 0n),
    );
    store.writer.writeHeld();
    const described = await callTool(describeMetric, { name: "wide.gauge", max_bytes: 4000 }, query.api);
    expect(described.structured.attributes).to.have.length(31);
    expect(described.structured.truncated).to.equal(true);
    expect(described.structured.attributes[0]).to.include({ key: "a.long", more: true });
    expect(described.summary).to.include("31 attribute keys (31 shown within max_bytes, at most");
    // With room for them, every value.
    const whole = await callTool(describeMetric, { name: "wide.gauge", max_bytes: 32768 }, query.api);
    expect(whole.structured.attributes[0]?.values).to.have.length(20);
    expect(whole.structured.truncated).to.equal(false);
  });

  it("chooses a name's identity by type, and says which types it has", async () => {
    const tokens = await callTool(queryMetric, { name: "tokens", type: "sum" }, query.api);
    expect(tokens.structured).to.include({ type: "sum", agg: "rate" });
    const described = await callTool(describeMetric, { name: "tokens", type: "sum" }, query.api);
    expect(described.structured.next[0]?.arguments).to.include({ name: "tokens", type: "sum" });
    const gauge = await queryMetric
      .run({ name: "tokens", type: "gauge" }, { api: query.api, baseUrl: TOOL_BASE_URL, maxBytes: 16384 })
      .catch((e: unknown) => e);
    expect((gauge as { code?: string }).code).to.equal("not_found");
    expect((gauge as Error).message).to.equal('no gauge metric "tokens" in the store (its types: sum)');
  });

  it("tells each type's aggregations and its default, a cumulative up-down sum's as a gauge's", () => {
    expect(queryMetric.description).to.include(
      "counter (monotonic sum) or delta up-down sum: rate, increase, sum (default rate)",
    );
    expect(queryMetric.description).to.include(
      "gauge or cumulative up-down (non-monotonic) sum: last, avg, min, max, sum (default last)",
    );
    expect(queryMetric.description).to.include("; histogram: count, sum, avg, p50, p90, p95, p99 (default p95)");
    expect(queryMetric.description).to.include("summary: count, sum, avg, p50, p90, p95, p99 (default p95)");
  });
});

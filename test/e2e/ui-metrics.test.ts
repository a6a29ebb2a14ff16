/**
 * The Metrics view in real Chromium against a real obsd: the list with the metrics' types, a
 * chart per metric grouped by service whose numbers (in the table view) are the series
 * route's, rate versus increase, deep links, exemplars opening their traces, and each state
 * (empty collector, no match, no points, the collector's error, a capped answer).
 */
import { expect } from "chai";
import { formatValue, groupLabel, inLabelOrder } from "../../client/web/views/metrics/series-data.js";
import type { MetricSeriesRecord } from "../../shared/query-types.js";
import { postJson } from "../helpers/http.js";
import { startUiSession, type UiSession } from "../helpers/ui-browser.js";
import { sendUiData, type UiData } from "../helpers/ui-data.js";

const MS = 1_000_000n;
const HISTOGRAM = "http.server.duration";
const CAPPED = "pool.size";
/** Pools of the capped gauge: more than the series route's 20 groups. */
const POOLS = 25;
const BOUNDS = [10, 50, 200, 1000];
/** Each histogram point adds these bucket counts (cumulative), per service. */
const HISTOGRAM_STEP: Record<string, number[]> = { checkout: [2, 10, 6, 2, 0], web: [8, 10, 2, 0, 0] };

const attr = (key: string, value: string) => ({ key, value: { stringValue: value } });

/** A cumulative histogram per service (checkout and web) whose newest points carry exemplars of real traces. */
function histogramBody(nowNs: bigint, exemplarTrace: Record<string, string>) {
  const points = 30;
  const startNs = nowNs - BigInt(points) * 10_000n * MS;
  return {
    resourceMetrics: Object.entries(HISTOGRAM_STEP).map(([service, step]) => ({
      resource: { attributes: [attr("service.name", service)] },
      scopeMetrics: [
        {
          scope: { name: `${service}-meter` },
          metrics: [
            {
              name: HISTOGRAM,
              unit: "ms",
              description: "Time to serve a request",
              histogram: {
                aggregationTemporality: 2,
                dataPoints: Array.from({ length: points }, (_, k) => {
                  const timeNs = startNs + BigInt(k + 1) * 10_000n * MS;
                  const counts = step.map((c) => c * (k + 1));
                  return {
                    startTimeUnixNano: startNs.toString(),
                    timeUnixNano: timeNs.toString(),
                    count: String(counts.reduce((a, b) => a + b, 0)),
                    sum: 40 * (k + 1),
                    bucketCounts: counts.map(String),
                    explicitBounds: BOUNDS,
                    attributes: [attr("http.route", "/checkout")],
                    exemplars:
                      k >= points - 3
                        ? [{ timeUnixNano: timeNs.toString(), asDouble: 180, traceId: exemplarTrace[service] }]
                        : [],
                  };
                }),
              },
            },
          ],
        },
      ],
    })),
  };
}

/** A gauge with POOLS series in one service, so grouping by pool is capped. */
function cappedBody(nowNs: bigint) {
  return {
    resourceMetrics: [
      {
        resource: { attributes: [attr("service.name", "web")] },
        scopeMetrics: [
          {
            scope: { name: "web-meter" },
            metrics: [
              {
                name: CAPPED,
                unit: "{connection}",
                gauge: {
                  dataPoints: Array.from({ length: POOLS }, (_, p) => ({
                    timeUnixNano: (nowNs - 20_000n * MS).toString(),
                    asInt: String(p + 1),
                    attributes: [attr("pool", `p${String(p).padStart(2, "0")}`)],
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

interface ShownTable {
  headers: string[];
  rows: Record<string, string[]>;
}

describe("the web UI's metrics view in real Chromium", function () {
  this.timeout(90_000);
  let ui: UiSession;

  before(async () => {
    ui = await startUiSession();
  });
  after(async () => {
    await ui?.close();
  });

  /** Waits for a condition with room for a busy machine (the default wait is 5 s). */
  async function until(condition: () => Promise<boolean>, message: string): Promise<void> {
    await ui.browser.waitUntil(condition, { timeout: 15_000, timeoutMsg: message });
  }

  async function waitForSeries(count: number): Promise<void> {
    // uPlot's legend has a row for x (time) and one per series.
    await ui.browser.waitUntil(
      async () => (await ui.browser.$$(".metric-chart .u-legend .u-series").length) === count + 1,
      {
        timeout: 15_000,
        timeoutMsg: `expected ${count} series in the chart's legend`,
      },
    );
  }

  async function legendLabels(): Promise<string[]> {
    const labels = await ui.browser.$$(".metric-chart .u-legend .u-series .u-label").map((label) => label.getText());
    return labels.slice(1);
  }

  async function apiSeries(params: string): Promise<{ data: MetricSeriesRecord }> {
    const response = await fetch(`${ui.collector.url}/api/metrics/series?${params}`);
    expect(response.status, params).to.equal(200);
    return (await response.json()) as { data: MetricSeriesRecord };
  }

  async function shownTable(): Promise<ShownTable> {
    await ui.browser.$(".series-table tbody tr").waitForExist({ timeout: 15_000 });
    return (await ui.browser.execute(`
      const table = document.querySelector(".series-table");
      const headers = [...table.querySelectorAll("thead th")].slice(1).map((th) => th.textContent);
      const rows = {};
      for (const tr of table.querySelectorAll("tbody tr"))
        rows[tr.dataset.bucket] = [...tr.querySelectorAll("td")].map((td) => td.textContent);
      return { headers, rows };
    `)) as unknown as ShownTable;
  }

  /**
   * The table's cells equal the route's values for every bucket both hold (the window moves with
   * the clock). A rate's newest bucket is the rate now, over a window that ends when its answer
   * was made (test/unit/query/metric-rates.test.ts): the table's and the route's newest bucket
   * are left out, for a rate, as each may be the other's closed one.
   */
  function expectTableMatches(shown: ShownTable, answered: MetricSeriesRecord): void {
    // The UI shows the groups in the order of their labels, the route in the order of its values.
    const answer = inLabelOrder(answered);
    expect(shown.headers).to.deep.equal(answer.groups.map((g) => groupLabel(g.group, answer.name)));
    // The table starts at the first bucket with a value.
    const first = answer.buckets.findIndex((_, i) => answer.groups.some((g) => g.values[i] !== null));
    const common = answer.buckets.filter((bucket) => shown.rows[bucket] !== undefined);
    expect(common.length).to.be.at.least(answer.buckets.length - first - 2);
    expect(answer.buckets.slice(0, first).filter((bucket) => shown.rows[bucket] !== undefined)).to.deep.equal([]);
    let filled = 0;
    for (const bucket of common) {
      const i = answer.buckets.indexOf(bucket);
      const expected = answer.groups.map((g) => formatValue(g.values[i] ?? null));
      const newest = i === answer.buckets.length - 1 || bucket === Object.keys(shown.rows).sort().at(-1);
      if (answer.agg === "rate" && newest) continue;
      expect(shown.rows[bucket], bucket).to.deep.equal(expected);
      filled += expected.filter((cell) => cell !== "").length;
    }
    expect(filled).to.be.greaterThan(10);
  }

  it("tells how to send metrics when the collector has none", async () => {
    await ui.open("/ui/metrics");
    const empty = ui.browser.$(".metric-list .empty");
    await empty.waitForExist({ timeout: 15_000 });
    expect(await empty.getText()).to.include(`${ui.collector.url}/v1/metrics`);
    await ui.screenshot("metrics-empty");
  });

  describe("with the known data set", () => {
    let data: UiData;
    const exemplarTrace: Record<string, string> = {};

    before(async () => {
      const nowNs = BigInt(Date.now()) * MS;
      data = await sendUiData(ui.collector.url, nowNs);
      exemplarTrace.checkout = data.failedTraceIds[1]!;
      exemplarTrace.web = data.traceIds.at(-1)!;
      for (const body of [histogramBody(nowNs, exemplarTrace), cappedBody(nowNs)]) {
        const answer = await postJson(`${ui.collector.url}/v1/metrics`, body);
        expect(answer.status).to.equal(200);
      }
      // The store writes in its own thread: wait until the API lists every metric and its series.
      await ui.browser.waitUntil(
        async () => {
          const answer = (await (await fetch(`${ui.collector.url}/api/metrics?lookback=15m`)).json()) as {
            data: { name: string; seriesCount: number }[];
          };
          const series = Object.fromEntries(answer.data.map((m) => [m.name, m.seriesCount]));
          return (
            series[HISTOGRAM] === 2 &&
            series[CAPPED] === POOLS &&
            series[data.metrics.counter] === 3 &&
            series[data.metrics.gauge] === 3
          );
        },
        { timeout: 15_000, timeoutMsg: "the metrics sent were not all listed" },
      );
    });

    it("lists the metrics with their types, and filters them by name", async () => {
      await ui.open("/ui/metrics?lookback=15m");
      await until(async () => (await ui.browser.$$(".metric-table tbody tr").length) === 4, "four metrics listed");
      const rows = await ui.browser
        .$$(".metric-table tbody tr")
        .map(async (row) => [await row.$(".metric-name a").getText(), await row.$("td:nth-child(2)").getText()]);
      // The type, then the unit under it.
      expect(rows).to.deep.equal([
        [HISTOGRAM, "histogram\nms"],
        [data.metrics.counter, "counter\n{request}"],
        [CAPPED, "gauge\n{connection}"],
        [data.metrics.gauge, "gauge\n{item}"],
      ]);
      const match = ui.browser.$("input[name=match]");
      await match.setValue("queue");
      await ui.browser.keys(ui.keys.enter!);
      await until(
        async () => (await ui.location()) === "/ui/metrics?lookback=15m&match=queue",
        "the name filter in the address",
      );
      await until(async () => (await ui.browser.$$(".metric-table tbody tr").length) === 1, "one metric listed");
      expect(await ui.browser.$(".metric-table .metric-name a").getText()).to.equal(data.metrics.gauge);
    });

    it("charts a selected counter per service, with the series route's numbers, as rate or increase", async () => {
      const counter = data.metrics.counter;
      await ui.open("/ui/metrics?lookback=15m");
      await ui.browser.$(".metric-table").$(`a=${counter}`).click();
      await until(
        async () => (await ui.location()) === `/ui/metrics?name=${counter}&lookback=15m`,
        "the selected metric in the address",
      );
      await waitForSeries(1);
      await ui.browser.$("details.group-by summary").click();
      await ui.browser.$("details.group-by input[value=service]").click();
      await until(
        async () => (await ui.location()) === `/ui/metrics?name=${counter}&lookback=15m&groupBy=service`,
        "grouping by service in the address",
      );
      await waitForSeries(data.services.length);
      await ui.browser.$("details.group-by summary").click();
      expect([...(await legendLabels())].sort()).to.deep.equal(data.services);
      expect(await ui.browser.$(".metric-chart canvas").getAttribute("aria-label")).to.equal(
        `${counter}, rate per second by service, 3 series, last 15m, in {request}/s`,
      );
      await ui.screenshot("metrics");

      // Paused, the table holds one answer while the test asks the route for the same parameters.
      await ui.browser.$(".live-toggle button").click();
      await ui.browser.$(".metric-toolbar").$("button=Show as table").click();
      const rate = await apiSeries(`name=${counter}&groupBy=service&lookback=15m`);
      expect(rate.data.agg).to.equal("rate");
      const shownRate = await shownTable();
      expectTableMatches(shownRate, rate.data);
      await ui.screenshot("metrics-table");
      // The data set's counters grow by 20, 30 and 40 every 10 s: 2, 3 and 4 a second.
      data.services.forEach((service, s) => {
        const column = shownRate.headers.indexOf(service);
        const cells = Object.values(shownRate.rows).map((row) => row[column]);
        expect(cells, service).to.include(String((20 + s * 10) / 10));
      });

      await ui.browser.$("select[aria-label=Aggregation]").selectByAttribute("value", "increase");
      await until(
        async () => (await ui.location()).endsWith("&groupBy=service&agg=increase"),
        "the aggregation in the address",
      );
      await until(async () => (await shownTable()).headers.length === 3, "a column per service");
      const increase = await apiSeries(`name=${counter}&groupBy=service&agg=increase&lookback=15m`);
      await until(
        async () => Object.values((await shownTable()).rows).some((r) => r.includes("40")),
        "the increase per bucket in the table",
      );
      const shownIncrease = await shownTable();
      expectTableMatches(shownIncrease, increase.data);
      const web = shownIncrease.headers.indexOf("web");
      expect(Object.values(shownIncrease.rows).map((row) => row[web])).to.include("40");
      await ui.browser.$(".live-toggle button").click();
    });

    it("keeps a line a person hid through live refreshes, its legend in label order, and says the open bucket is so far", async () => {
      const counter = data.metrics.counter;
      await ui.open(`/ui/metrics?name=${counter}&groupBy=service&agg=increase&lookback=15m`);
      await waitForSeries(3);
      expect(await legendLabels()).to.deep.equal([...data.services].sort());
      const hidden = [...data.services].sort()[1] as string;
      await ui.browser.$(".metric-chart .u-legend").$(`.u-label=${hidden}`).click();
      const isOff = async () =>
        (await ui.browser.execute(
          `return [...document.querySelectorAll(".metric-chart .u-legend .u-series")].filter((s) => s.classList.contains("u-off")).map((s) => s.querySelector(".u-label").textContent)`,
        )) as unknown as string[];
      expect(await isOff()).to.deep.equal([hidden]);
      for (let refreshes = 0; refreshes < 2; refreshes++) {
        const refreshed = await ui.browser.$(".live-toggle .muted").getText();
        await until(async () => (await ui.browser.$(".live-toggle .muted").getText()) !== refreshed, "a live refresh");
      }
      expect(await isOff()).to.deep.equal([hidden]);
      expect(await legendLabels()).to.deep.equal([...data.services].sort());
      await ui.screenshot("metrics-hidden-line");
      // The newest bucket of an increase is still filling: the table says so, the chart leaves it out.
      await ui.browser.$(".metric-toolbar").$("button=Show as table").click();
      await shownTable();
      const last = await ui.browser.$$(".series-table tbody tr th").map((th) => th.getText());
      expect(last.at(-1)).to.include("(open: so far)");
      expect(last.slice(0, -1).join("\n")).to.not.include("so far");
    });

    it("wraps a long name and attribute value inside the panel, the page no wider than the window", async () => {
      const long = `very.long.metric.name.${"segment_without_breaks_".repeat(6)}end`;
      const value = `value-${"x".repeat(80)}`;
      const nowNs = BigInt(Date.now()) * MS;
      const body = {
        resourceMetrics: [
          {
            resource: { attributes: [attr("service.name", "web")] },
            scopeMetrics: [
              {
                scope: { name: "long" },
                metrics: [
                  {
                    name: long,
                    gauge: {
                      dataPoints: [1, 2, 3].map((k) => ({
                        timeUnixNano: (nowNs - BigInt(40 - k * 10) * 1_000n * MS).toString(),
                        asInt: String(k),
                        attributes: [attr("some.really.long.attribute.key.name", value)],
                      })),
                    },
                  },
                ],
              },
            ],
          },
        ],
      };
      expect((await postJson(`${ui.collector.url}/v1/metrics`, body)).status).to.equal(200);
      for (const width of [1280, 800]) {
        await ui.browser.setViewport({ width, height: 800 });
        try {
          await ui.open(`/ui/metrics?name=${long}&groupBy=attr.some.really.long.attribute.key.name&lookback=15m`);
          await waitForSeries(1);
          await ui.browser.$(".metric-details button.attribute-value").waitForExist({ timeout: 15_000 });
          const widths = (await ui.browser.execute(
            "return [document.documentElement.scrollWidth, window.innerWidth]",
          )) as unknown as [number, number];
          expect(widths[0], `at ${width} px`).to.be.at.most(widths[1]);
          await ui.screenshot(`metrics-long-names-${width}`);
        } finally {
          await ui.browser.setViewport({ width: 1280, height: 800 });
        }
      }
    });

    it("keeps the list in its column beside the chart when a unit is long", async () => {
      const name = "k8s.pod.restarts";
      const unit = "{kubernetes.container.restarts_per_pod}";
      const nowNs = BigInt(Date.now()) * MS;
      const body = {
        resourceMetrics: [
          {
            resource: { attributes: [attr("service.name", "web")] },
            scopeMetrics: [
              {
                scope: { name: "k8s" },
                metrics: [
                  {
                    name,
                    unit,
                    gauge: {
                      dataPoints: [1, 2, 3].map((k) => ({
                        timeUnixNano: (nowNs - BigInt(40 - k * 10) * 1_000n * MS).toString(),
                        asInt: String(k),
                      })),
                    },
                  },
                ],
              },
            ],
          },
        ],
      };
      expect((await postJson(`${ui.collector.url}/v1/metrics`, body)).status).to.equal(200);
      await ui.browser.setViewport({ width: 1400, height: 800 });
      try {
        await ui.open(`/ui/metrics?name=${name}&lookback=15m`);
        await waitForSeries(1);
        await until(
          async () => (await ui.browser.$$(".metric-table .metric-unit").map((cell) => cell.getText())).includes(unit),
          "the long unit listed",
        );
        const [listRight, panelLeft, lastRight, tableRight] = (await ui.browser.execute(`
          const last = [...document.querySelectorAll(".metric-table thead th")].at(-1);
          return [
            document.querySelector(".metric-list").getBoundingClientRect().right,
            document.querySelector(".metric-panel").getBoundingClientRect().left,
            last.getBoundingClientRect().right,
            document.querySelector(".metric-table").getBoundingClientRect().right,
          ];
        `)) as unknown as [number, number, number, number];
        expect(tableRight, "the table's right edge").to.be.at.most(panelLeft);
        expect(lastRight, "the Last column's right edge").to.be.at.most(listRight);
        await ui.screenshot("metrics-long-unit");
      } finally {
        await ui.browser.setViewport({ width: 1280, height: 800 });
      }
    });

    it("reproduces a chart from a deep link", async () => {
      const counter = data.metrics.counter;
      await ui.open(`/ui/metrics?name=${counter}&groupBy=service&agg=increase&lookback=15m`);
      await waitForSeries(3);
      expect(await ui.browser.$("select[aria-label=Aggregation]").getValue()).to.equal("increase");
      expect(await ui.browser.$("details.group-by summary").getText()).to.include("service");
      expect(await ui.browser.$(".metric-chart canvas").getAttribute("aria-label")).to.equal(
        `${counter}, increase per 10s by service, 3 series, last 15m, in {request}`,
      );
      await ui.browser.$(".metric-table tr.selected").waitForExist({ timeout: 15_000 });
      expect(await ui.browser.$(".metric-table tr.selected .metric-name a").getText()).to.equal(counter);
      await ui.browser.$(".metric-details").waitForExist({ timeout: 15_000 });
      expect(await ui.browser.$(".metric-details").getText()).to.include("http.route");
    });

    it("charts a histogram's p95 and opens an exemplar's trace from the list and from its mark on the chart", async () => {
      await ui.open(`/ui/metrics?name=${HISTOGRAM}&groupBy=service&agg=p95&lookback=15m`);
      await waitForSeries(2);
      expect([...(await legendLabels())].sort()).to.deep.equal(["checkout", "web"]);
      const links = ui.browser.$$(".metric-exemplars a");
      await until(async () => (await links.length) === 2, "an exemplar per service");
      const hrefs = await links.map((link) => link.getAttribute("href"));
      expect([...hrefs].sort()).to.deep.equal(
        [`/ui/traces/${exemplarTrace.checkout}`, `/ui/traces/${exemplarTrace.web}`].sort(),
      );
      await ui.screenshot("metrics-histogram-p95");
      // A keyboard user reaches the exemplar through the list: a focused link opens on Enter.
      await ui.browser.execute(
        `document.querySelector('.metric-exemplars a[href$="${exemplarTrace.checkout}"]').focus()`,
      );
      await ui.browser.keys(ui.keys.enter!);
      await until(
        async () => (await ui.location()) === `/ui/traces/${exemplarTrace.checkout}`,
        "the exemplar's trace opened",
      );

      // On the chart, each exemplar is a mark on its group's line, inside the plot; a click opens its trace.
      await ui.open(`/ui/metrics?name=${HISTOGRAM}&groupBy=service&agg=p95&lookback=15m`);
      await waitForSeries(2);
      const marks = ui.browser.$$(".metric-chart a.exemplar-mark");
      await until(async () => (await marks.length) === 2, "a mark per exemplar on the chart");
      const placed = (await ui.browser.execute(`
        const over = document.querySelector(".metric-chart .u-over").getBoundingClientRect();
        return [...document.querySelectorAll(".metric-chart a.exemplar-mark")].map((mark) => {
          const box = mark.getBoundingClientRect();
          const x = box.left + box.width / 2, y = box.top + box.height / 2;
          return [mark.getAttribute("href"), x >= over.left && x <= over.right && y >= over.top && y <= over.bottom];
        });
      `)) as unknown as [string, boolean][];
      expect(placed.map(([href]) => href).sort()).to.deep.equal([...hrefs].sort());
      expect(placed.map(([, inside]) => inside)).to.deep.equal([true, true]);
      // A live refresh moves the marks without replacing them: a keyboard user keeps their place.
      await ui.browser.execute(
        `document.querySelector('.metric-chart a.exemplar-mark[href$="${exemplarTrace.web}"]').focus()`,
      );
      const refreshed = await ui.browser.$(".live-toggle .muted").getText();
      await until(async () => (await ui.browser.$(".live-toggle .muted").getText()) !== refreshed, "a live refresh");
      expect(await ui.browser.execute("return document.activeElement?.dataset?.trace ?? null")).to.equal(
        exemplarTrace.web,
      );
      await ui.browser.$(`.metric-chart a.exemplar-mark[href$="${exemplarTrace.web}"]`).click();
      await until(async () => (await ui.location()) === `/ui/traces/${exemplarTrace.web}`, "the mark's trace opened");
    });

    it("shows the collector's refusal, a window without points, no match and a capped answer", async () => {
      const counter = data.metrics.counter;
      await ui.open(`/ui/metrics?name=${counter}&agg=p95&lookback=15m`);
      const refused = await fetch(`${ui.collector.url}/api/metrics/series?name=${counter}&agg=p95&lookback=15m`);
      expect(refused.status).to.equal(400);
      const { error } = (await refused.json()) as { error: string };
      const box = ui.browser.$(".metric-panel .error-box");
      await box.waitForExist({ timeout: 15_000 });
      expect(await box.getText()).to.equal(error);
      await ui.screenshot("metrics-error");

      await ui.open(`/ui/metrics?name=${data.metrics.gauge}&attr.queue=nowhere&lookback=15m`);
      const empty = ui.browser.$(".metric-panel .empty");
      await empty.waitForExist({ timeout: 15_000 });
      expect(await empty.getText()).to.include(`No points of ${data.metrics.gauge} in the last 15m with these filters`);

      await ui.open("/ui/metrics?lookback=15m&match=nothing.like.this");
      await ui.browser.$(".metric-list .empty").waitForExist({ timeout: 15_000 });
      expect(await ui.browser.$(".metric-list .empty").getText()).to.include("nothing.like.this");

      await ui.open(`/ui/metrics?name=${CAPPED}&groupBy=attr.pool&lookback=15m`);
      await waitForSeries(20);
      expect(await ui.browser.$(".cap-notice").getText()).to.include("Showing the 20 groups");
      await ui.screenshot("metrics-capped");
    });

    it("is readable in the dark scheme and charts first on a narrow window", async () => {
      const path = `/ui/metrics?name=${data.metrics.counter}&groupBy=service&lookback=15m`;
      await ui.colourScheme("dark");
      try {
        await ui.open(path);
        await waitForSeries(3);
        await ui.screenshot("metrics-dark");
      } finally {
        await ui.colourScheme("");
      }
      await ui.browser.setViewport({ width: 390, height: 800 });
      try {
        await ui.open(`/ui/metrics?name=${HISTOGRAM}&groupBy=service&lookback=15m`);
        await waitForSeries(2);
        const panel = await ui.browser.$(".metric-panel").getLocation("y");
        const list = await ui.browser.$(".metric-list").getLocation("y");
        expect(panel).to.be.below(list);
        await ui.screenshot("metrics-narrow");
      } finally {
        await ui.browser.setViewport({ width: 1280, height: 800 });
      }
    });
  });

  describe("with a name of two types, and windows a step cannot span", () => {
    const DUAL = "jobs.active";
    /** A gauge of `jobs.active` in batch, a counter of the same name in worker, points every 10 s. */
    function dualBody(nowNs: bigint) {
      const points = (value: (k: number) => number) =>
        Array.from({ length: 12 }, (_, k) => ({
          startTimeUnixNano: (nowNs - 130_000n * MS).toString(),
          timeUnixNano: (nowNs - BigInt(11 - k) * 10_000n * MS).toString(),
          asInt: String(value(k)),
          attributes: [attr("queue", k % 2 === 0 ? "" : "main")],
        }));
      const resource = (service: string, metric: Record<string, unknown>) => ({
        resource: { attributes: [attr("service.name", service)] },
        scopeMetrics: [{ scope: { name: "jobs" }, metrics: [{ name: DUAL, unit: "{job}", ...metric }] }],
      });
      return {
        resourceMetrics: [
          resource("batch", { gauge: { dataPoints: points((k) => 1_234_567 + k) } }),
          resource("worker", {
            sum: { aggregationTemporality: 2, isMonotonic: true, dataPoints: points((k) => 100 * (k + 1)) },
          }),
        ],
      };
    }

    before(async () => {
      const answer = await postJson(`${ui.collector.url}/v1/metrics`, dualBody(BigInt(Date.now()) * MS));
      expect(answer.status).to.equal(200);
      await ui.browser.waitUntil(
        async () => {
          const listed = (await (await fetch(`${ui.collector.url}/api/metrics?name=${DUAL}`)).json()) as {
            data: unknown[];
          };
          return listed.data.length === 2;
        },
        { timeout: 15_000, timeoutMsg: "both identities listed" },
      );
    });

    it("opens each identity of a name from its own row, and shows whole counts whole", async () => {
      await ui.open(`/ui/metrics?match=${DUAL}&lookback=15m`);
      await until(async () => (await ui.browser.$$(".metric-table tbody tr").length) === 2, "two rows of the name");
      for (const [type, aggs] of [
        ["gauge", ["last", "avg", "min", "max", "sum"]],
        ["counter", ["rate", "increase", "sum"]],
      ] as const) {
        const rows = await ui.browser
          .$$(".metric-table tbody tr")
          .filter(async (r) => (await r.getText()).includes(type));
        await rows[0]!.$(".metric-name a").click();
        await until(
          async () => (await ui.location()).includes(`type=${type === "counter" ? "sum" : type}`),
          `the ${type}'s type`,
        );
        await waitForSeries(1);
        expect(await ui.browser.$(".metric-panel-head .muted").getText()).to.match(new RegExp(`^${type} `));
        const offered = (await ui.browser.execute(
          `return [...document.querySelectorAll("select[aria-label=Aggregation] option")].map((o) => o.value)`,
        )) as unknown as string[];
        expect(offered.filter((value) => value !== "")).to.deep.equal([...aggs]);
        await until(
          async () => (await ui.browser.$$(".metric-table tr.selected").length) === 1,
          "one row marked as charted",
        );
        expect(await ui.browser.$(".metric-table tr.selected").getText()).to.include(type);
        if (type === "gauge") await ui.screenshot("metrics-two-types");
      }
      // The gauge's newest value, a count, in the table as sent, not rounded to six digits.
      await ui.open(`/ui/metrics?name=${DUAL}&type=gauge&groupBy=attr.queue&lookback=15m`);
      await waitForSeries(2);
      expect([...(await legendLabels())].sort()).to.deep.equal(["(empty)", "main"]);
      await ui.browser.$(".metric-toolbar").$("button=Show as table").click();
      const table = await shownTable();
      const cells = Object.values(table.rows).flat();
      expect(cells).to.include(String(1_234_567 + 10));
      expect(cells).to.include(String(1_234_567 + 11));
      // Filtering by the empty value from the About pane.
      const buttons = await ui.browser
        .$$(".metric-details button.attribute-value")
        .filter(async (b) => (await b.getText()).includes("(empty)"));
      await buttons[0]!.click();
      await until(async () => (await ui.location()).includes("attr.queue="), "the empty value's filter in the address");
      await until(async () => (await shownTable()).headers.length === 1, "one group left");
      expect((await shownTable()).headers).to.deep.equal(["(empty)"]);
    });

    it("sends a step the new window cannot take back to auto, and never shows another window's chart under an error", async () => {
      const path = `/ui/metrics?name=${DUAL}&type=sum&lookback=15m&step=10s`;
      await ui.open(path);
      await waitForSeries(1);
      await ui.browser.$("select[aria-label='Time range']").selectByVisibleText("24h");
      await until(
        async () => (await ui.location()) === `/ui/metrics?name=${DUAL}&type=sum&lookback=24h`,
        "the window changed and the step gone",
      );
      await waitForSeries(1);
      expect(await ui.browser.$(".metric-panel .error-box").isExisting()).to.equal(false);
      expect(await ui.browser.$(".metric-chart canvas").getAttribute("aria-label")).to.include("last 24h");

      // An address whose question the collector refuses (the back button, an edited link): its
      // error, and not the chart of the question before it.
      await ui.open(path);
      await waitForSeries(1);
      await ui.browser.execute(
        `history.pushState(null, "", "/ui/metrics?name=${DUAL}&type=sum&lookback=24h&step=10s"); dispatchEvent(new PopStateEvent("popstate"));`,
      );
      const box = ui.browser.$(".metric-panel .error-box");
      await box.waitForExist({ timeout: 15_000 });
      expect(await box.getText()).to.include("invalid step 10s");
      expect(await ui.browser.$(".metric-chart").isExisting()).to.equal(false);
      await ui.screenshot("metrics-refused-step");
    });
  });
});

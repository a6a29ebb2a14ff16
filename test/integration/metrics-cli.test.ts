import { expect } from "chai";
import { formatMetricValue } from "../../client/render/metric-groups.js";
import { ASCII_LEVELS, BLOCK_LEVELS } from "../../client/render/sparkline.js";
import { type CollectorProcess, startCollectorProcess } from "../helpers/collector-process.js";
import { postJson } from "../helpers/http.js";
import { runObs } from "../helpers/obs-cli.js";
import { cliDocumentValidator } from "../helpers/schema-validator.js";

const validateEnvelope = cliDocumentValidator();
const NS_PER_MS = 1_000_000n;

type Attribute = { key: string; value: { stringValue: string } };
const attribute = (key: string, value: string): Attribute => ({ key, value: { stringValue: value } });

/**
 * One OTLP/JSON metrics request from service `shop`: a cumulative monotonic counter
 * `requests` and a delta histogram `latency` (bounds 10 and 100 ms), each with a series for
 * route /a and one for route /b.
 */
function metricsRequest(nowMs: number) {
  const ns = (msAgo: number) => String(BigInt(nowMs - msAgo) * NS_PER_MS);
  const counterPoint = (route: string, msAgo: number, value: number) => ({
    attributes: [attribute("route", route)],
    startTimeUnixNano: ns(600_000),
    timeUnixNano: ns(msAgo),
    asInt: String(value),
  });
  const histogramPoint = (route: string, counts: number[], sum: number) => ({
    attributes: [attribute("route", route)],
    startTimeUnixNano: ns(120_000),
    timeUnixNano: ns(60_000),
    count: String(counts.reduce((a, b) => a + b, 0)),
    sum,
    bucketCounts: counts.map(String),
    explicitBounds: [10, 100],
  });
  return {
    resourceMetrics: [
      {
        resource: { attributes: [attribute("service.name", "shop")] },
        scopeMetrics: [
          {
            scope: { name: "metrics-cli-test" },
            metrics: [
              {
                name: "requests",
                unit: "{request}",
                description: "Requests served",
                sum: {
                  aggregationTemporality: 2,
                  isMonotonic: true,
                  dataPoints: [
                    counterPoint("/a", 120_000, 5),
                    counterPoint("/a", 60_000, 12),
                    counterPoint("/b", 120_000, 3),
                    counterPoint("/b", 60_000, 4),
                  ],
                },
              },
              {
                name: "latency",
                unit: "ms",
                histogram: {
                  aggregationTemporality: 1,
                  dataPoints: [histogramPoint("/a", [2, 6, 2], 500), histogramPoint("/b", [10, 0, 0], 40)],
                },
              },
            ],
          },
        ],
      },
    ],
  };
}

interface GroupJson {
  group: Record<string, string | null>;
  values: (number | null)[];
  latest: number | null;
  series: number;
  resets: number;
}

function present(values: (number | null)[]): number[] {
  return values.filter((value): value is number => value !== null);
}

describe("obs metrics and obs metric (real collector)", function () {
  this.timeout(60_000);
  let obsd: CollectorProcess;
  let env: NodeJS.ProcessEnv;

  before(async () => {
    obsd = await startCollectorProcess();
    env = { OBS_STATE_DIR: obsd.stateDir, OBS_MONITOR_URL: obsd.url, LANG: "C.UTF-8", LC_ALL: "", LC_CTYPE: "" };
    const answer = await postJson(`${obsd.url}/v1/metrics`, metricsRequest(Date.now()));
    expect(answer.status, answer.body.toString()).to.equal(200);
    expect(answer.json()).to.deep.equal({ accepted: 6 });
  });
  after(async () => {
    await obsd.stop();
  });

  it("lists the metrics seen in the window as a table and as one document", async () => {
    const text = await runObs(["metrics"], { env });
    expect(text.code, text.stderr).to.equal(0);
    const lines = text.stdout.trimEnd().split("\n");
    expect(lines[0]).to.match(/^NAME\s+TYPE\s+TEMPORALITY\s+UNIT\s+SERVICES\s+SERIES\s+POINTS\s+LAST SEEN$/);
    // A monotonic sum is named a counter, and each identity shows its temporality.
    expect(lines.find((line) => line.startsWith("requests "))).to.match(
      /^requests\s+counter\s+cumulative\s+\{request\}\s+shop\s+2\s+4\s+\d{4}-/,
    );
    expect(lines.find((line) => line.startsWith("latency "))).to.match(
      /^latency\s+histogram\s+\w+\s+ms\s+shop\s+2\s+2\s+\d{4}-/,
    );
    expect(lines.at(-1)).to.equal("2 shown");

    const json = await runObs(["metrics", "--json", "--name", "req"], { env });
    expect(json.code, json.stderr).to.equal(0);
    const document = JSON.parse(json.stdout);
    expect(validateEnvelope(document), JSON.stringify(validateEnvelope.errors)).to.equal(true);
    expect(document.command).to.equal("metrics");
    expect(document.data).to.have.length(1);
    expect(document.data[0]).to.include({
      name: "requests",
      type: "sum",
      temporality: "cumulative",
      monotonic: true,
      series_count: 2,
      point_count: 4,
    });
  });

  it("prints a counter's groups with their latest value and a sparkline, and every bucket with --json", async () => {
    const args = ["metric", "requests", "--group-by", "attr.route", "--agg", "increase"];
    const json = await runObs([...args, "--json"], { env });
    expect(json.code, json.stderr).to.equal(0);
    const document = JSON.parse(json.stdout);
    expect(validateEnvelope(document), JSON.stringify(validateEnvelope.errors)).to.equal(true);
    const data = document.data as { agg: string; value_unit: string; buckets: string[]; groups: GroupJson[] };
    expect(data.agg).to.equal("increase");
    const byRoute = new Map(data.groups.map((group) => [group.group["attr.route"], group]));
    // Each series started ten minutes before the collector: its first point is the baseline
    // (counts 0), then each point its increase: 7 and 1.
    const total = (route: string) => present(byRoute.get(route)?.values ?? []).reduce((a, b) => a + b, 0);
    expect([total("/a"), total("/b")]).to.deep.equal([7, 1]);
    for (const group of data.groups) expect(group.values).to.have.length(data.buckets.length);

    const text = await runObs(args, { env });
    expect(text.code, text.stderr).to.equal(0);
    const lines = text.stdout.trimEnd().split("\n");
    expect(lines[0]).to.match(/^requests \(sum, \{request\}\) {2}agg increase {2}step \S+ {2}\S+ \.\. \S+$/);
    expect(lines[1]).to.match(/^ATTR\.ROUTE\s+LATEST\s+TOTAL\s+SERIES\s+WINDOW$/);
    for (const route of ["/a", "/b"]) {
      const group = byRoute.get(route) as GroupJson;
      const row = lines.find((line) => line.startsWith(`${route} `)) as string;
      expect(row, route).to.be.a("string");
      expect(row).to.include(`  ${formatMetricValue(group.latest, data.value_unit)}  `);
      // The increase over the buckets: 7 and 1, as added up from the JSON above.
      expect(row).to.include(`  ${formatMetricValue(total(route), data.value_unit)}  `);
      const line = /\|(.*)\|$/.exec(row)?.[1] ?? "";
      expect(
        [...line].every((ch) => ch === " " || BLOCK_LEVELS.includes(ch)),
        line,
      ).to.equal(true);
      expect(line.trim()).to.not.equal("");
    }
  });

  it("draws the sparkline in ASCII when the locale is not UTF-8", async () => {
    const text = await runObs(["metric", "requests", "--group-by", "attr.route"], { env: { ...env, LANG: "C" } });
    expect(text.code, text.stderr).to.equal(0);
    const rows = text.stdout.split("\n").filter((line) => /^\/[ab] /.test(line));
    expect(rows).to.have.length(2);
    for (const row of rows) {
      const line = /\|(.*)\|$/.exec(row)?.[1] ?? "";
      expect(
        [...line].every((ch) => ch === " " || ASCII_LEVELS.includes(ch)),
        line,
      ).to.equal(true);
    }
    expect(text.stdout).to.match(/^[\n -~]*$/);
  });

  it("answers a histogram's percentile interpolated within its bucket", async () => {
    const json = await runObs(["metric", "latency", "--group-by", "attr.route", "--agg", "p50", "--json"], { env });
    expect(json.code, json.stderr).to.equal(0);
    const groups = JSON.parse(json.stdout).data.groups as GroupJson[];
    const p50 = (route: string) => present(groups.find((group) => group.group["attr.route"] === route)?.values ?? []);
    // /a: counts 2, 6, 2 over bounds 10, 100; rank 5 falls 3 of 6 into (10, 100]: 10 + 90 * 3 / 6.
    // /b: all 10 in (0, 10]: rank 5 is halfway, 5.
    expect([p50("/a"), p50("/b")]).to.deep.equal([[55], [5]]);
  });

  it("describes a metric's attribute keys and values, to group or filter by", async () => {
    const text = await runObs(["metric", "requests", "--describe"], { env });
    expect(text.code, text.stderr).to.equal(0);
    expect(text.stdout).to.match(/^requests \(sum, \{request\}, cumulative, monotonic\)\nRequests served\n/);
    expect(text.stdout).to.match(/^attr\.route\s+\/a \(1\), \/b \(1\)$/m);
    const json = await runObs(["metric", "requests", "--describe", "--json"], { env });
    const document = JSON.parse(json.stdout);
    expect(validateEnvelope(document), JSON.stringify(validateEnvelope.errors)).to.equal(true);
    expect(document.data.attributes).to.deep.equal([
      {
        key: "route",
        values: [
          { value: "/a", series: 1 },
          { value: "/b", series: 1 },
        ],
        more: false,
      },
    ]);
  });

  it("filters by attribute, and ends with exit 4 for a metric it does not know and 2 for a bad flag", async () => {
    const filtered = await runObs(["metric", "requests", "--agg", "increase", "attr.route=/b", "--json"], { env });
    expect(filtered.code, filtered.stderr).to.equal(0);
    const groups = JSON.parse(filtered.stdout).data.groups as GroupJson[];
    expect(groups.map((group) => [group.group, group.series])).to.deep.equal([[{}, 1]]);
    // 4 - 3: the first point, from before the collector started, is the baseline.
    expect(present(groups[0]?.values ?? []).reduce((a, b) => a + b, 0)).to.equal(1);

    const unknown = await runObs(["metric", "no.such.metric"], { env });
    expect(unknown.code).to.equal(4);
    const bad = await runObs(["metric", "requests", "--group-by", "operation"], { env });
    expect([bad.code, bad.stderr]).to.deep.equal([
      2,
      'obs: metric: --group-by "operation": use service or attr.KEY; see obs metric --help\n',
    ]);
    // A key filtered on twice is refused, as the API refuses it, not narrowed to its last value.
    const twice = await runObs(["metric", "requests", "attr.route=/a", "attr.route=/b"], { env });
    expect([twice.code, twice.stderr]).to.deep.equal([
      2,
      "obs: metric: attr.route is given more than once: filter on one value of a key; see obs metric --help\n",
    ]);
    const bare = await runObs(["metric", "requests", "--since"], { env });
    expect([bare.code, bare.stderr]).to.deep.equal([2, "obs: metric: --since needs a value; see obs metric --help\n"]);
    const since = await runObs(["metric", "requests", "--since", "abc"], { env });
    expect(since.code).to.equal(2);
    expect(since.stderr).to.match(/^obs: metric: .*abc.*; see obs metric --help\n$/);
    // Refused by the collector (400): an argument error too.
    const agg = await runObs(["metric", "requests", "--agg", "p95"], { env });
    expect(agg.code).to.equal(2);
    expect(agg.stderr).to.match(/^obs: metric: agg p95 does not apply to requests .*; see obs metric --help\n$/);
  });
});

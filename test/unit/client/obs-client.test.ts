import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { expect } from "chai";
import { ObsClient } from "../../../client/api/obs-client.js";
import { LifecycleError } from "../../../client/lifecycle/lifecycle-error.js";

type Reply = (request: IncomingMessage, response: ServerResponse) => void;

/** A local HTTP server that records each request's URL and answers with `reply`. */
async function collectorStub(reply: Reply): Promise<{ baseUrl: string; urls: string[]; server: Server }> {
  const urls: string[] = [];
  const server = createServer((request, response) => {
    urls.push(request.url ?? "");
    reply(request, response);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, urls, server };
}

function json(status: number, body: unknown): Reply {
  return (_, response) => {
    response.writeHead(status, { "content-type": "application/json" });
    response.end(JSON.stringify(body));
  };
}

const PAGE = { data: [], meta: { limit: 20, lookback: "15m", returned: 0, truncated: false, nextCursor: null } };
const TRACE_ID = "0123456789abcdef0123456789abcdef";
const SPAN_ID = "0123456789abcdef";

async function failureOf(promise: Promise<unknown>): Promise<LifecycleError> {
  try {
    await promise;
  } catch (error) {
    expect(error).to.be.instanceOf(LifecycleError);
    return error as LifecycleError;
  }
  throw new Error("the request did not fail");
}

describe("ObsClient", () => {
  const servers: Server[] = [];
  afterEach(async () => {
    await Promise.all(servers.splice(0).map((server) => new Promise((resolve) => server.close(resolve))));
  });

  async function stub(reply: Reply) {
    const started = await collectorStub(reply);
    servers.push(started.server);
    return { client: new ObsClient(started.baseUrl), ...started };
  }

  it("builds each route's URL from a typed request: filters first, then the route's parameters in its order", async () => {
    const { client, urls } = await stub(json(200, PAGE));
    await client.listServices({ lookback: "1h" });
    await client.listTraces({
      limit: 5,
      cursor: "C/+=",
      lookback: "2h",
      durationMin: 10.5,
      status: "error",
      service: "api",
      attr: [
        ["http.route", "/x"],
        ["k", "a b"],
      ],
    });
    await client.getTrace({ traceId: TRACE_ID, include: "spans,logs" });
    await client.getTraceSpans({ traceId: TRACE_ID, cursor: "C" });
    await client.traceLogs({ traceId: TRACE_ID, lookback: "24h", limit: 2 });
    await client.traceStats({ groupBy: "attr.k", agg: "p95_duration", operation: "GET /", attr: [["a", "1"]] });
    await client.searchSpans({
      parentOperation: "p",
      traceId: TRACE_ID,
      attrContains: [["m", "n"]],
      attr: [["k", "v"]],
    });
    await client.getSpan({ spanId: SPAN_ID });
    await client.spanLogs({ spanId: SPAN_ID });
    await client.searchLogs({ contains: "it's down", severity: "warn", limit: 4 });
    await client.logStats({ groupBy: "severity", service: "s" });
    await client.facets({ type: "traces", field: "attribute_values", key: "k", limit: 3 });
    await client.audit({ until: "2026-01-01T00:00:00Z", lookbackMinutes: 30, baselineMinutes: 60, service: "s" });
    await client.health();
    expect(urls).to.deep.equal([
      "/api/services?lookback=1h",
      "/api/traces?attr.http.route=%2Fx&attr.k=a+b&service=api&status=error&durationMin=10.5&lookback=2h&limit=5&cursor=C%2F%2B%3D",
      `/api/traces/${TRACE_ID}?include=spans%2Clogs`,
      `/api/traces/${TRACE_ID}/spans?cursor=C`,
      `/api/traces/${TRACE_ID}/logs?lookback=24h&limit=2`,
      "/api/traces/stats?attr.a=1&groupBy=attr.k&agg=p95_duration&operation=GET+%2F",
      `/api/spans/search?attr.k=v&attrContains.m=n&traceId=${TRACE_ID}&parentOperation=p`,
      `/api/spans/${SPAN_ID}`,
      `/api/spans/${SPAN_ID}/logs`,
      "/api/logs?severity=warn&contains=it%27s+down&limit=4",
      "/api/logs/stats?groupBy=severity&service=s",
      "/api/facets?type=traces&field=attribute_values&key=k&limit=3",
      "/api/audit?service=s&lookbackMinutes=30&baselineMinutes=60&until=2026-01-01T00%3A00%3A00Z",
      "/api/health",
    ]);
  });

  it("sends a repeated attribute filter once, with its last value", async () => {
    const { client, urls } = await stub(json(200, PAGE));
    await client.searchLogs({
      attr: [
        ["k", "1"],
        ["j", "x"],
        ["k", "2"],
      ],
    });
    expect(urls).to.deep.equal(["/api/logs?attr.k=2&attr.j=x"]);
  });

  it("asks the metric routes, each groupBy item as its own groupBy parameter", async () => {
    const { client, urls } = await stub(json(200, PAGE));
    await client.listMetrics({ service: "api", name: "token", lookback: "1h", limit: 5, cursor: "C" });
    await client.listMetrics();
    await client.metricSeries({
      name: "gen_ai.client.token.usage",
      groupBy: ["service", "attr.gen_ai.token.type", "attr.a,b"],
      agg: "sum",
      step: "1m",
      attr: [["model", "m 1"]],
      limit: 3,
    });
    await client.metricSeries({ name: "m" });
    await client.describeMetric({ name: "m", service: "api", lookback: "2h" });
    expect(urls).to.deep.equal([
      "/api/metrics?service=api&name=token&lookback=1h&limit=5&cursor=C",
      "/api/metrics",
      "/api/metrics/series?attr.model=m+1&name=gen_ai.client.token.usage&groupBy=service&groupBy=attr.gen_ai.token.type&groupBy=attr.a%2Cb&agg=sum&step=1m&limit=3",
      "/api/metrics/series?name=m",
      "/api/metrics/describe?name=m&service=api&lookback=2h",
    ]);
  });

  it("escapes the ids it puts in a path", async () => {
    const { client, urls } = await stub(json(200, { data: {} }));
    await client.getSpan({ spanId: "a/b?c" });
    expect(urls).to.deep.equal(["/api/spans/a%2Fb%3Fc"]);
  });

  it("returns the answer's body as the collector sent it", async () => {
    const answer = { ...PAGE, data: [{ name: "api", lastSeenAt: "2026-01-01T00:00:00.000000000Z" }] };
    const { client } = await stub(json(200, answer));
    expect(await client.listServices()).to.deep.equal(answer);
  });

  for (const [status, code] of [
    [400, "invalid_argument"],
    [404, "not_found"],
    [500, "store_failure"],
    [503, "store_failure"],
    [418, "query_failure"],
  ] as const) {
    it(`turns status ${status} into code ${code}, with the collector's message`, async () => {
      const { client } = await stub(json(status, { error: `refused with ${status}` }));
      const failure = await failureOf(client.getTrace({ traceId: TRACE_ID }));
      expect([failure.code, failure.message]).to.deep.equal([code, `refused with ${status}`]);
    });
  }

  it("names the status when an error answer carries no message", async () => {
    const { client } = await stub(json(404, {}));
    const failure = await failureOf(client.getSpan({ spanId: SPAN_ID }));
    expect([failure.code, failure.message]).to.deep.equal(["not_found", "status 404"]);
  });

  it("says a server that does not answer JSON is no obs collector (exit 3)", async () => {
    const { client, baseUrl } = await stub((_, response) => {
      response.writeHead(200, { "content-type": "text/html" });
      response.end("<html></html>");
    });
    const failure = await failureOf(client.listTraces());
    expect([failure.code, failure.message]).to.deep.equal([
      "collector_unavailable",
      `${baseUrl} did not answer like an obs collector (status 200)`,
    ]);
  });

  it("says no collector answers where nothing listens, with the URL it tried", async () => {
    const { baseUrl, server } = await stub(json(200, PAGE));
    await new Promise((resolve) => server.close(resolve));
    servers.splice(servers.indexOf(server), 1);
    const failure = await failureOf(new ObsClient(baseUrl).listServices({ lookback: "5m" }));
    expect([failure.code, failure.message, failure.details]).to.deep.equal([
      "collector_unavailable",
      `no collector answers at ${baseUrl} (ECONNREFUSED)`,
      { url: `${baseUrl}/api/services?lookback=5m` },
    ]);
  });

  it("fails with code timeout when no answer comes in time", async () => {
    const held: ServerResponse[] = [];
    const { baseUrl } = await stub((_, response) => held.push(response));
    const failure = await failureOf(new ObsClient(baseUrl, { timeoutMs: 50 }).health());
    for (const response of held) response.destroy();
    expect([failure.code, failure.message, failure.details]).to.deep.equal([
      "timeout",
      `no answer from ${baseUrl} within 0.05 s`,
      { url: `${baseUrl}/api/health` },
    ]);
  });
});

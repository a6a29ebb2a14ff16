import { expect } from "chai";
import { type CollectorProcess, startCollectorProcess } from "../helpers/collector-process.js";
import { http, postJson } from "../helpers/http.js";
import { hexId, type LogSpec, logsRequest, type SpanSpec, traceRequest } from "../helpers/otlp-builders.js";

const MS = 1_000_000n;
const SERVICES = ["api", "billing", "search"];

/** One generated trace: root (server) -> child -> grandchild, all in the trace's service. */
interface PlannedTrace {
  i: number;
  traceId: string;
  service: string;
  startNs: bigint;
  durationMs: number;
  error: boolean;
  route: string;
}

function plan(count: number, baseNs: bigint): PlannedTrace[] {
  return Array.from({ length: count }, (_, i) => ({
    i,
    traceId: hexId(1000 + i, 16),
    service: SERVICES[i % 3] as string,
    // Newest last, 1 s apart, all within the last few minutes.
    startNs: baseNs + BigInt(i) * 1000n * MS,
    durationMs: 10 + i,
    error: i % 4 === 0,
    route: `/items/${i % 5}`,
  }));
}

function spansOf(t: PlannedTrace): SpanSpec[] {
  const root = hexId(10_000 + t.i * 3, 8);
  const child = hexId(10_001 + t.i * 3, 8);
  return [
    {
      traceId: t.traceId,
      spanId: root,
      name: `GET ${t.route}`,
      startNs: t.startNs,
      durationNs: BigInt(t.durationMs) * MS,
      attributes: { "http.route": t.route, "user.id": `u${t.i % 7}` },
    },
    {
      traceId: t.traceId,
      spanId: child,
      parentSpanId: root,
      name: "charge",
      startNs: t.startNs + MS,
      error: t.error,
      attributes: { "payment.provider": t.i % 2 ? "acme" : "globex" },
    },
    {
      traceId: t.traceId,
      spanId: hexId(10_002 + t.i * 3, 8),
      parentSpanId: child,
      name: "SELECT",
      startNs: t.startNs + 2n * MS,
      attributes: { "db.statement": `SELECT * FROM t${t.i}` },
    },
  ];
}

async function getJson(url: string) {
  const res = await http(url);
  return { status: res.status, body: res.json() };
}

/** Follows nextCursor to the end; returns every item in order and the page count. */
async function allPages(url: string): Promise<{ items: any[]; pages: number }> {
  const items: any[] = [];
  let pages = 0;
  let next: string | null = url;
  while (next) {
    const { status, body } = await getJson(next);
    expect(status, JSON.stringify(body)).to.equal(200);
    items.push(...body.data);
    pages++;
    next = body.meta.nextCursor
      ? `${url}${url.includes("?") ? "&" : "?"}cursor=${encodeURIComponent(body.meta.nextCursor)}`
      : null;
  }
  return { items, pages };
}

describe("query API (real obsd)", function () {
  this.timeout(60_000);
  let obsd: CollectorProcess;
  let traces: PlannedTrace[];
  // Set when the tests start, not when the file loads: the suite may load it long before it
  // runs, and the data must fall inside the default 15-minute window.
  let base: bigint;

  before(async () => {
    base = BigInt(Date.now() - 5 * 60_000) * MS;
    obsd = await startCollectorProcess();
    traces = plan(60, base);
    for (const service of SERVICES) {
      const spans = traces.filter((t) => t.service === service).flatMap(spansOf);
      expect((await postJson(`${obsd.url}/v1/traces`, traceRequest(service, spans))).status).to.equal(200);
    }
    // Two hours old: outside the default 15m lookback, inside lookback=3h.
    const old = {
      i: 999,
      traceId: hexId(999, 16),
      service: "api",
      startNs: base - 7_200_000n * MS,
      durationMs: 5,
      error: false,
      route: "/old",
    };
    await postJson(`${obsd.url}/v1/traces`, traceRequest("api", spansOf(old)));
    const logs: LogSpec[] = traces.map((t) => ({
      timeNs: t.startNs + 3n * MS,
      body: t.error ? `payment failed for order ${t.i}` : `order ${t.i} done`,
      severityNumber: t.error ? 17 : 9,
      traceId: t.traceId,
      spanId: hexId(10_001 + t.i * 3, 8),
      attributes: { "order.id": `o${t.i}` },
    }));
    await postJson(`${obsd.url}/v1/logs`, logsRequest("api", logs));
  });
  after(async () => {
    await obsd.stop();
  });

  it("lists active services", async () => {
    const { body } = await getJson(`${obsd.url}/api/services`);
    expect(body.data.map((s: any) => s.name)).to.deep.equal(["api", "billing", "search"]);
  });

  it("lists traces newest first with the default page of 20 and the spec's metadata", async () => {
    const { body } = await getJson(`${obsd.url}/api/traces`);
    expect(body.data.map((t: any) => t.traceId)).to.deep.equal(
      traces
        .slice(-20)
        .reverse()
        .map((t) => t.traceId),
    );
    expect(body.meta).to.include({ limit: 20, lookback: "15m", returned: 20, truncated: true });
    expect(body.meta.nextCursor).to.be.a("string");
    const newest = traces[59]!;
    expect(body.data[0]).to.include({
      rootServiceName: newest.service,
      rootOperation: `GET ${newest.route}`,
      spanCount: 3,
      durationMs: newest.durationMs,
    });
  });

  it("pages through all traces with no duplicates or gaps, also while ingestion continues", async () => {
    const first = await getJson(`${obsd.url}/api/traces?limit=7`);
    // New traces arrive between pages; keyset cursors must not shift the remaining pages.
    const late = plan(5, base + 3_000_000n * MS).map((t) => ({ ...t, traceId: hexId(5000 + t.i, 16) }));
    await postJson(`${obsd.url}/v1/traces`, traceRequest("api", late.flatMap(spansOf)));
    const ids = first.body.data.map((t: any) => t.traceId);
    let cursor = first.body.meta.nextCursor;
    while (cursor) {
      const { body } = await getJson(`${obsd.url}/api/traces?limit=7&cursor=${encodeURIComponent(cursor)}`);
      ids.push(...body.data.map((t: any) => t.traceId));
      cursor = body.meta.nextCursor;
    }
    expect(ids).to.deep.equal(
      traces
        .slice()
        .reverse()
        .map((t) => t.traceId),
    );
  });

  it("applies every trace filter exactly", async () => {
    const ids = async (query: string) =>
      (await allPages(`${obsd.url}/api/traces?limit=100&${query}`)).items.map((t) => t.traceId).sort();
    const expected = (keep: (t: PlannedTrace) => boolean) =>
      traces
        .filter(keep)
        .map((t) => t.traceId)
        .sort();
    expect(await ids("service=billing")).to.deep.equal(expected((t) => t.service === "billing"));
    expect(await ids("status=error")).to.deep.equal(expected((t) => t.error));
    expect(await ids("status=ok")).to.deep.equal(expected((t) => !t.error));
    expect(await ids("operation=GET%20%2Fitems%2F3")).to.deep.equal(expected((t) => t.route === "/items/3"));
    expect(await ids("durationMin=50")).to.deep.equal(expected((t) => t.durationMs >= 50));
    expect(await ids("attr.user.id=u3")).to.deep.equal(expected((t) => t.i % 7 === 3));
    expect(await ids("attr.payment.provider=acme&service=search")).to.deep.equal(
      expected((t) => t.i % 2 === 1 && t.service === "search"),
    );
    expect(await ids("service=billing&status=error&durationMin=20")).to.deep.equal(
      expected((t) => t.service === "billing" && t.error && t.durationMs >= 20),
    );
    expect(await ids("lookback=3h&service=api&operation=GET%20%2Fold")).to.deep.equal([hexId(999, 16)]);
  });

  it("caps limits and shows the effective value", async () => {
    expect((await getJson(`${obsd.url}/api/traces?limit=1000`)).body.meta.limit).to.equal(100);
    expect((await getJson(`${obsd.url}/api/spans/search?limit=1000`)).body.meta.limit).to.equal(500);
    expect((await getJson(`${obsd.url}/api/logs?limit=1000`)).body.meta.limit).to.equal(500);
    expect((await getJson(`${obsd.url}/api/spans/search`)).body.meta.limit).to.equal(100);
  });

  it("refuses bad parameters with 400, naming them", async () => {
    const bad = async (query: string, pattern: RegExp) => {
      const { status, body } = await getJson(`${obsd.url}${query}`);
      expect(status, query).to.equal(400);
      expect(body.error, query).to.match(pattern);
    };
    await bad("/api/traces?lookback=25h", /maximum of 24h/);
    await bad("/api/logs?lookback=2d", /maximum of 24h/);
    await bad("/api/traces?status=broken", /status.*ok, error/);
    await bad("/api/traces?limit=-1", /limit/);
    await bad("/api/traces?colour=red", /unknown parameter colour/);
    await bad("/api/traces?attrContains.k=v", /unknown parameter attrContains\.k/);
    await bad("/api/traces/xyz", /trace id/);
    await bad(`/api/traces/${hexId(1000, 16)}?include=everything`, /include/);
    await bad("/api/spans/search?traceId=123", /traceId/);
    const page = await getJson(`${obsd.url}/api/traces?limit=5&service=api`);
    await bad(`/api/traces?limit=5&service=billing&cursor=${page.body.meta.nextCursor}`, /other filters/);
    await bad("/api/traces?cursor=garbage", /invalid cursor/);
  });

  it("answers 404 for unknown traces and spans, and 405 for other methods", async () => {
    expect((await getJson(`${obsd.url}/api/traces/${hexId(424242, 16)}`)).status).to.equal(404);
    expect((await getJson(`${obsd.url}/api/traces/${hexId(424242, 16)}/spans`)).status).to.equal(404);
    expect((await getJson(`${obsd.url}/api/spans/${hexId(424242, 8)}`)).status).to.equal(404);
    expect((await http(`${obsd.url}/api/traces`, { method: "POST" })).status).to.equal(405);
  });

  it("returns a trace as a tree with depths, and adds spans, logs and attributes on request", async () => {
    const t = traces[8]!;
    const { body } = await getJson(`${obsd.url}/api/traces/${t.traceId}`);
    expect(body.data).to.include({ traceId: t.traceId, status: "error", errorCount: 1, spanCount: 3 });
    expect(body.data.tree.map((n: any) => [n.operation, n.depth])).to.deep.equal([
      [`GET ${t.route}`, 0],
      ["charge", 1],
      ["SELECT", 2],
    ]);
    expect(body.data).not.to.have.property("spans");
    const full = (await getJson(`${obsd.url}/api/traces/${t.traceId}?include=spans,logs,attributes`)).body.data;
    expect(full.spans).to.have.length(3);
    expect(full.logs.map((l: any) => l.body)).to.deep.equal([`payment failed for order ${t.i}`]);
    expect(full.tree[0].attributes).to.deep.equal({ "http.route": t.route, "user.id": `u${t.i % 7}` });
    const flat = (await getJson(`${obsd.url}/api/traces/${t.traceId}/spans`)).body;
    expect(flat.data.map((s: any) => s.operation).sort()).to.deep.equal(["GET /items/3", "SELECT", "charge"].sort());
  });

  it("searches spans with every filter", async () => {
    const count = async (query: string) =>
      (await allPages(`${obsd.url}/api/spans/search?limit=500&${query}`)).items.length;
    expect(await count("")).to.equal(180);
    expect(await count("service=api")).to.equal(60);
    expect(await count("operation=charge&status=error")).to.equal(15);
    expect(await count("parentOperation=charge")).to.equal(60);
    expect(await count(`traceId=${traces[3]!.traceId}`)).to.equal(3);
    expect(await count("attr.db.statement=SELECT%20*%20FROM%20t7")).to.equal(1);
    expect(await count("attrContains.db.statement=FROM%20t1")).to.equal(11); // t1, t10..t19
    const paged = await allPages(`${obsd.url}/api/spans/search?limit=13`);
    expect(new Set(paged.items.map((s: any) => s.spanId)).size).to.equal(180);
    expect(paged.pages).to.equal(Math.ceil(180 / 13));
  });

  it("returns one span with its trace and parent, and its correlated logs", async () => {
    const t = traces[12]!;
    const childId = hexId(10_001 + t.i * 3, 8);
    const { body } = await getJson(`${obsd.url}/api/spans/${childId}`);
    expect(body.data).to.include({ spanId: childId, operation: "charge", traceId: t.traceId, missingParent: false });
    expect(body.data.parent.operation).to.equal(`GET ${t.route}`);
    expect(body.data.trace.traceId).to.equal(t.traceId);
    const logs = (await getJson(`${obsd.url}/api/spans/${childId}/logs`)).body;
    expect(logs.data.map((l: any) => l.body)).to.deep.equal([`payment failed for order ${t.i}`]);
    const traceLogs = (await getJson(`${obsd.url}/api/traces/${t.traceId}/logs`)).body;
    expect(traceLogs.data).to.have.length(1);
  });

  it("searches logs with every filter, and pages through them", async () => {
    const bodies = async (query: string) =>
      (await allPages(`${obsd.url}/api/logs?limit=500&${query}`)).items.map((l) => l.body);
    expect(await bodies("")).to.have.length(60);
    expect(await bodies("severity=error")).to.have.length(15);
    expect(await bodies("severity=INFO")).to.have.length(45);
    expect(await bodies("contains=failed%20for%20order%204")).to.deep.equal([
      "payment failed for order 48",
      "payment failed for order 44",
      "payment failed for order 40",
      "payment failed for order 4",
    ]);
    expect(await bodies("body=order%2059%20done")).to.deep.equal(["order 59 done"]);
    expect(await bodies(`traceId=${traces[5]!.traceId}`)).to.deep.equal(["order 5 done"]);
    expect(await bodies("attr.order.id=o33")).to.deep.equal(["order 33 done"]);
    expect(await bodies("attrContains.order.id=o5")).to.have.length(11); // o5, o50..o59
    const paged = await allPages(`${obsd.url}/api/logs/search?limit=8`);
    expect(paged.items.map((l) => l.body)).to.deep.equal(
      traces
        .slice()
        .reverse()
        .map((t) => (t.error ? `payment failed for order ${t.i}` : `order ${t.i} done`)),
    );
  });

  it("aggregates traces per group: count, average and nearest-rank p95 duration, error rate", async () => {
    const rows = async (query: string) => (await getJson(`${obsd.url}/api/traces/stats?${query}`)).body.data;
    const billing = traces.filter((t) => t.service === "billing");
    const byRoute = new Map<string, PlannedTrace[]>();
    for (const t of billing) byRoute.set(`GET ${t.route}`, [...(byRoute.get(`GET ${t.route}`) ?? []), t]);
    const counts = await rows("groupBy=operation&agg=count&service=billing");
    expect(Object.fromEntries(counts.map((r: any) => [r.group, r.value]))).to.deep.equal(
      Object.fromEntries([...byRoute].map(([route, ts]) => [route, ts.length])),
    );
    expect(counts[0]).to.include({ agg: "count", unit: "traces" });
    const nearestRank = (values: number[]) => [...values].sort((a, b) => a - b)[Math.ceil(0.95 * values.length) - 1];
    const p95 = await rows("groupBy=service&agg=p95_duration&operation=GET%20%2Fitems%2F2");
    for (const service of ["billing", "search"]) {
      const durations = traces.filter((t) => t.service === service && t.route === "/items/2").map((t) => t.durationMs);
      expect(p95.find((r: any) => r.group === service)).to.include({ value: nearestRank(durations), unit: "ms" });
    }
    const errorRate = (await rows("groupBy=status&agg=count&service=search")).map((r: any) => [r.group, r.value]);
    const search = traces.filter((t) => t.service === "search");
    expect(Object.fromEntries(errorRate)).to.deep.equal({
      ok: search.filter((t) => !t.error).length,
      error: search.filter((t) => t.error).length,
    });
    const rate = (await rows("groupBy=service&agg=error_rate&service=search"))[0];
    expect(rate).to.include({
      group: "search",
      unit: "fraction",
      value: search.filter((t) => t.error).length / search.length,
    });
  });

  it("counts logs per group", async () => {
    const { body } = await getJson(`${obsd.url}/api/logs/stats?groupBy=severity`);
    expect(body.data.map((r: any) => [r.group, r.count])).to.deep.equal([
      ["info", 45],
      ["error", 15],
    ]);
  });

  it("lists facet values with counts", async () => {
    const values = async (query: string) =>
      Object.fromEntries(
        (await getJson(`${obsd.url}/api/facets?${query}`)).body.data.map((f: any) => [f.value, f.count]),
      );
    const billing = traces.filter((t) => t.service === "billing");
    expect(await values("type=traces&field=status&service=billing")).to.deep.equal({
      ok: billing.filter((t) => !t.error).length,
      error: billing.filter((t) => t.error).length,
    });
    expect(await values("type=traces&field=attribute_values&key=payment.provider&service=search")).to.deep.equal({
      acme: traces.filter((t) => t.service === "search" && t.i % 2 === 1).length,
      globex: traces.filter((t) => t.service === "search" && t.i % 2 === 0).length,
    });
    expect(Object.keys(await values("type=traces&field=attribute_keys&service=billing")).sort()).to.deep.equal([
      "db.statement",
      "http.route",
      "payment.provider",
      "user.id",
    ]);
    expect(await values("type=logs&field=service")).to.deep.equal({ api: 60 });
    const limited = (await getJson(`${obsd.url}/api/facets?type=traces&field=operation&limit=2`)).body;
    expect(limited.data).to.have.length(2);
    expect(limited.meta).to.include({ limit: 2, truncated: true });
  });

  it("refuses bad aggregate and facet parameters with 400", async () => {
    for (const [query, pattern] of [
      ["/api/traces/stats?agg=count", /groupBy is required/],
      ["/api/traces/stats?groupBy=service&agg=median", /agg/],
      ["/api/traces/stats?groupBy=colour&agg=count", /groupBy.*attr\.KEY/],
      ["/api/logs/stats?groupBy=severity&agg=p95_duration", /agg/],
      ["/api/facets?type=logs&field=operation", /for type=logs/],
      ["/api/facets?type=traces&field=attribute_values", /needs key/],
      ["/api/facets?field=service", /type is required/],
    ] as const) {
      const { status, body } = await getJson(`${obsd.url}${query}`);
      expect(status, query).to.equal(400);
      expect(body.error, query).to.match(pattern);
    }
  });
});

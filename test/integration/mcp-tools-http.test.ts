import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { expect } from "chai";
import { MCP_TOOLS } from "../../daemon/mcp/tool-list.js";
import { type CollectorProcess, startCollectorProcess } from "../helpers/collector-process.js";
import { http, postJson } from "../helpers/http.js";
import { hexId, type LogSpec, logsRequest, type SpanSpec, traceRequest } from "../helpers/otlp-builders.js";
import { exceptionEvent, withSpanExtras } from "../helpers/span-extras.js";

const MS = 1_000_000n;
const S = 1000n * MS;
const SHOP = "mth-shop";
const DB = "mth-db";
const PAY = "mth-pay";
const BIG = "mth-big";
const METRIC = "mth.queue.depth";
const GAUGE_VALUES = [3, 5, 7];
const BIG_SPANS = 10_000;

/** An ok trace (shop > db) and a failed one (shop > pay with error status, shop > render throwing). */
const OK = { traceId: hexId(501, 16), root: hexId(501, 8), query: hexId(502, 8) };
const FAILED = {
  traceId: hexId(601, 16),
  root: hexId(601, 8),
  charge: hexId(602, 8),
  render: hexId(603, 8),
  message: "card declined",
};
const BIG_TRACE = hexId(701, 16);

interface Answer {
  structured: Record<string, unknown>;
  text: string;
}

describe("every MCP tool through obsd's /mcp (Streamable HTTP), against a known data set", function () {
  this.timeout(240_000);
  let obsd: CollectorProcess;
  let client: Client;
  let t0: bigint;
  let logs: LogSpec[];

  const call = async (name: string, args: Record<string, unknown>): Promise<Answer> => {
    const result = await client.callTool({ name, arguments: args });
    const text = JSON.stringify(result.structuredContent);
    expect(result.isError, `${name}: ${JSON.stringify(result.content)}`).to.not.equal(true);
    return { structured: result.structuredContent as Record<string, unknown>, text };
  };
  const post = async (path: string, body: unknown) => {
    const answer = await postJson(`${obsd.url}${path}`, body);
    expect(answer.status, answer.body.toString()).to.equal(200);
  };

  before(async () => {
    obsd = await startCollectorProcess();
    t0 = BigInt(Date.now() - 120_000) * MS;
    await post(
      "/v1/traces",
      traceRequest(SHOP, [
        { traceId: OK.traceId, spanId: OK.root, name: "GET /cart", startNs: t0, durationNs: 30n * MS },
        { traceId: FAILED.traceId, spanId: FAILED.root, name: "POST /pay", startNs: t0 + S, durationNs: 40n * MS },
      ]),
    );
    await post(
      "/v1/traces",
      traceRequest(DB, [
        {
          traceId: OK.traceId,
          spanId: OK.query,
          parentSpanId: OK.root,
          name: "SELECT cart",
          startNs: t0 + 2n * MS,
          durationNs: 20n * MS,
        },
      ]),
    );
    await post(
      "/v1/traces",
      withSpanExtras(
        traceRequest(PAY, [
          {
            traceId: FAILED.traceId,
            spanId: FAILED.charge,
            parentSpanId: FAILED.root,
            name: "charge",
            startNs: t0 + S + 2n * MS,
            durationNs: 10n * MS,
            error: true,
            statusMessage: FAILED.message,
          },
          {
            traceId: FAILED.traceId,
            spanId: FAILED.render,
            parentSpanId: FAILED.root,
            name: "render",
            startNs: t0 + S + 20n * MS,
            durationNs: 5n * MS,
          },
        ]),
        FAILED.render,
        { events: [exceptionEvent(t0 + S + 21n * MS, "TypeError", "total is undefined", "at render (pay.js:1)")] },
      ),
    );
    logs = [
      {
        timeNs: t0 + S + 3n * MS,
        severityNumber: 17,
        body: `charge failed: ${FAILED.message}`,
        traceId: FAILED.traceId,
        spanId: FAILED.charge,
      },
      {
        timeNs: t0 + S + 22n * MS,
        severityNumber: 9,
        body: "render retried",
        traceId: FAILED.traceId,
        spanId: FAILED.render,
      },
      { timeNs: t0 + 3n * MS, severityNumber: 9, body: "cart read", traceId: OK.traceId, spanId: OK.query },
    ];
    await post("/v1/logs", logsRequest(PAY, logs));
    await post("/v1/metrics", {
      resourceMetrics: [
        {
          resource: { attributes: [{ key: "service.name", value: { stringValue: SHOP } }] },
          scopeMetrics: [
            {
              scope: { name: "mth" },
              metrics: [
                {
                  name: METRIC,
                  gauge: {
                    // Every minute up to now: still reporting when queried, its value now the newest.
                    dataPoints: GAUGE_VALUES.map((value, i) => ({
                      timeUnixNano: String(t0 + BigInt(60 * i) * S),
                      asDouble: value,
                    })),
                  },
                },
              ],
            },
          ],
        },
      ],
    });
    // A 10,000-span trace, a root and children four to a parent, sent in parts.
    const big: SpanSpec[] = Array.from({ length: BIG_SPANS }, (_, i) => ({
      traceId: BIG_TRACE,
      spanId: hexId(i + 1, 8),
      ...(i === 0 ? {} : { parentSpanId: hexId(Math.floor((i - 1) / 4) + 1, 8) }),
      name: `op-${i % 7}`,
      startNs: t0 + 2n * S + BigInt(i) * 1000n,
      durationNs: BigInt(BIG_SPANS - i) * 1000n,
    }));
    for (let from = 0; from < BIG_SPANS; from += 2000)
      await post("/v1/traces", traceRequest(BIG, big.slice(from, from + 2000)));
    // Ingest is written behind the answer: wait until every span can be queried.
    for (let tries = 0; tries < 200; tries++) {
      const answer = await http(`${obsd.url}/api/traces/${BIG_TRACE}?limit=1`);
      const metrics = await http(`${obsd.url}/api/metrics?lookback=1h`);
      if (
        answer.status === 200 &&
        answer.json<{ data: { spanCount: number } }>().data.spanCount === BIG_SPANS &&
        metrics.body.toString().includes(METRIC)
      )
        break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    client = new Client({ name: "mcp-tools-http-test", version: "1.0.0" });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${obsd.url}/mcp`)));
  });
  after(async () => {
    await client?.close();
    await obsd?.stop();
  });

  it("answers every tool in MCP_TOOLS from the data written", async () => {
    const checked = new Set<string>();
    const check = async (name: string, args: Record<string, unknown>, expectations: (answer: Answer) => void) => {
      expectations(await call(name, args));
      checked.add(name);
    };
    await check("list_services", { lookback: "1h" }, ({ text }) => {
      for (const service of [SHOP, DB, PAY, BIG]) expect(text).to.contain(`"${service}"`);
    });
    await check("search_traces", { service: SHOP, lookback: "1h" }, ({ structured, text }) => {
      expect(structured.traces).to.have.length(2);
      expect(text).to.contain(OK.traceId).and.contain(FAILED.traceId);
      // Each trace links to its waterfall in the web UI of the collector that answered.
      for (const trace of structured.traces as { trace_id: string; ui_url: string }[])
        expect(trace.ui_url).to.equal(`${obsd.url}/ui/traces/${trace.trace_id}`);
    });
    await check("get_trace_outline", { trace_id: FAILED.traceId }, ({ structured }) => {
      const rows = structured.rows as unknown[][];
      expect(rows.map((row) => row[0])).to.deep.equal([FAILED.root, FAILED.charge, FAILED.render]);
      expect(rows.map((row) => row[7])).to.deep.equal([0, 1, 1]);
      expect(structured).to.deep.include({ span_count: 3, trace_spans_over_cap: false, truncated: false });
      expect(structured.ui_url).to.equal(`${obsd.url}/ui/traces/${FAILED.traceId}`);
    });
    await check("get_span_details", { span_ids: [FAILED.charge], trace_id: FAILED.traceId }, ({ structured, text }) => {
      expect(structured.spans).to.have.length(1);
      expect(text).to.contain(FAILED.charge).and.contain(FAILED.message);
      expect((structured.spans as { ui_url: string }[])[0]?.ui_url).to.equal(
        `${obsd.url}/ui/traces/${FAILED.traceId}?span=${FAILED.charge}`,
      );
    });
    await check("get_trace_errors", { trace_id: FAILED.traceId }, ({ structured, text }) => {
      const spans = structured.error_spans as { span_id: string }[];
      expect(spans.map((span) => span.span_id)).to.deep.equal([FAILED.charge, FAILED.render]);
      const failedLogs = logs.filter((log) => log.traceId === FAILED.traceId);
      expect(structured.logs).to.have.length(failedLogs.length);
      expect(structured).to.deep.include({ more_logs: false, truncated: false });
      expect(text).to.contain("TypeError").and.contain(FAILED.message);
      expect(structured.ui_url).to.equal(`${obsd.url}/ui/traces/${FAILED.traceId}`);
    });
    await check("get_critical_path", { trace_id: FAILED.traceId }, ({ structured }) => {
      expect(structured.root_span_id).to.equal(FAILED.root);
      expect(structured.ui_url).to.equal(`${obsd.url}/ui/traces/${FAILED.traceId}`);
      const ids = new Set((structured.path as { span_id: string }[]).map((row) => row.span_id));
      expect([...ids].sort()).to.deep.equal([FAILED.root, FAILED.charge, FAILED.render].sort());
    });
    await check("search_spans", { trace_id: FAILED.traceId, lookback: "1h" }, ({ structured, text }) => {
      expect(structured.spans).to.have.length(3);
      for (const id of [FAILED.root, FAILED.charge, FAILED.render]) expect(text).to.contain(id);
    });
    await check("search_logs", { trace_id: FAILED.traceId, lookback: "1h" }, ({ structured, text }) => {
      expect(structured.logs).to.have.length(logs.filter((log) => log.traceId === FAILED.traceId).length);
      expect(text).to.contain(FAILED.message);
    });
    await check("trace_stats", { group_by: "service", agg: "count", lookback: "1h" }, ({ structured }) => {
      const rows = structured.rows as { group: string | null; value: number }[];
      expect(rows.find((row) => row.group === SHOP)?.value).to.equal(2);
      expect(rows.find((row) => row.group === BIG)?.value).to.equal(1);
    });
    await check("log_stats", { group_by: "service", lookback: "1h" }, ({ structured }) => {
      const rows = structured.rows as { group: string | null; count: number }[];
      expect(rows.find((row) => row.group === PAY)?.count).to.equal(logs.length);
    });
    await check("facets", { type: "traces", field: "service", lookback: "1h" }, ({ text }) => {
      for (const service of [SHOP, DB, PAY, BIG]) expect(text).to.contain(`"${service}"`);
    });
    await check("run_audit", { lookback: "1h" }, ({ structured, text }) => {
      // The one failed trace is an error finding on its root's service, naming the trace.
      const findings = structured.findings as { code: string; service: string | null }[];
      expect(
        findings.filter((finding) => finding.code === "error_trace").map((finding) => finding.service),
      ).to.deep.equal([SHOP]);
      expect(text).to.contain(FAILED.traceId);
    });
    await check("list_metrics", { lookback: "1h" }, ({ structured, text }) => {
      expect(structured.metrics).to.have.length(1);
      expect(text).to.contain(METRIC);
    });
    await check("query_metric", { name: METRIC, group_by: ["service"], lookback: "1h" }, ({ text }) => {
      expect(text).to.contain(METRIC).and.contain(SHOP);
      // The newest point is the group's latest value.
      expect(text).to.match(new RegExp(`"latest":\\s*${GAUGE_VALUES.at(-1)}\\b`));
    });
    await check("describe_metric", { name: METRIC, lookback: "1h" }, ({ structured, text }) => {
      expect((structured.metric as { name: string }).name).to.equal(METRIC);
      expect(text).to.match(new RegExp(`"point_?[cC]ount":\\s*${GAUGE_VALUES.length}\\b`));
    });
    expect([...checked].sort()).to.deep.equal(MCP_TOOLS.map((tool) => tool.name).sort());
  });

  it("follows a 10,000-span trace's outline through its continuations: every span once, depth-first", async () => {
    const expected: string[] = [];
    const visit = (i: number) => {
      expected.push(hexId(i + 1, 8));
      for (let c = 4 * i + 1; c <= 4 * i + 4 && c < BIG_SPANS; c++) visit(c);
    };
    visit(0);
    const seen: string[] = [];
    let args: Record<string, unknown> = { trace_id: BIG_TRACE, max_bytes: 32768 };
    for (let calls = 0; calls < 100; calls++) {
      const { structured } = await call("get_trace_outline", args);
      expect(structured.offset).to.equal(seen.length);
      expect(structured).to.deep.include({ span_count: BIG_SPANS, trace_spans_over_cap: false });
      const rows = structured.rows as unknown[][];
      expect(rows.length, "progress").to.be.greaterThan(0);
      seen.push(...rows.map((row) => row[0] as string));
      if (!structured.truncated) break;
      args = (structured.continuation as { arguments: Record<string, unknown> }).arguments;
    }
    expect(seen).to.deep.equal(expected);
  });
});

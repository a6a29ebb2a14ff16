import { expect } from "chai";
import { obsCommand } from "../../../daemon/audit/follow-up.js";
import { runAudit } from "../../../daemon/mcp/tools/audit.js";
import { followUpCall, shellWords } from "../../../daemon/mcp/tools/audit-follow-up.js";
import { ALL_ANOMALIES, type AuditScenario, auditScenario } from "../../helpers/audit-scenario.js";
import { callTool, type StoreApi, storeApi, TOOL_BASE_URL } from "../../helpers/mcp-tools.js";
import { type TestStore, testStore } from "../../helpers/store.js";

const UNTIL_MS = 1_800_000_000_000;
const UNTIL = new Date(UNTIL_MS).toISOString();

describe("MCP run_audit", () => {
  let store: TestStore;
  let query: StoreApi;
  let scenario: AuditScenario;
  beforeEach(() => {
    store = testStore();
    scenario = auditScenario(UNTIL_MS, ALL_ANOMALIES);
    for (const request of scenario.traces) store.writeTraces(request);
    for (const request of scenario.logs) store.writeLogs(request);
    query = storeApi(store.path);
    query.setNow(BigInt(UNTIL_MS) * 1_000_000n);
  });
  afterEach(() => {
    query.close();
    store.close();
  });

  it("finds every planted anomaly, with evidence and each follow-up as the tool call it means", async () => {
    const { structured, summary } = await callTool(runAudit, { until: UNTIL }, query.api);
    expect(new Set(structured.findings.map((finding) => finding.code))).to.deep.equal(new Set(ALL_ANOMALIES));
    expect(structured.window.current_end.slice(0, 19)).to.equal(UNTIL.slice(0, 19));
    expect(structured.truncated).to.equal(false);

    const errors = structured.findings.find((finding) => finding.code === "error_trace");
    expect(errors).to.deep.include({ service: "billing", operation: "POST /pay" });
    expect(errors?.follow_up[0]).to.deep.equal({
      command: "obs traces --service billing --operation 'POST /pay' --status error --since 15m",
      call: {
        tool: "search_traces",
        arguments: { service: "billing", operation: "POST /pay", status: "error", lookback: "15m" },
        why: "follow-up of error_trace on POST /pay",
      },
    });
    const traceStep = errors?.follow_up[1];
    expect(traceStep?.call?.tool).to.equal("get_trace_outline");
    expect(errors?.evidence.trace_ids).to.include(traceStep?.call?.arguments.trace_id);
    // The audit's figures are named as every answer field is: snake_case.
    expect(errors?.current).to.have.all.keys("error_traces", "traces");
    expect(errors?.baseline).to.have.all.keys("error_traces");

    const burst = structured.findings.find((finding) => finding.code === "log_burst");
    expect(burst?.evidence.trace_ids).to.have.members(scenario.planted.burstTraceIds);
    expect(burst?.follow_up.map((item) => item.call?.tool)).to.deep.equal(["log_stats", "search_logs", "search_logs"]);
    expect(burst?.follow_up[0]?.call?.arguments).to.deep.equal({
      group_by: "severity",
      service: "shop",
      lookback: "15m",
    });
    expect(burst?.follow_up[2]?.call?.arguments).to.deep.include({ lookback: "24h" });

    const orphans = structured.findings.find((finding) => finding.code === "incomplete_trace");
    expect(orphans?.evidence.span_ids).to.have.members(scenario.planted.orphanSpanIds);

    // next: the first findings' translated calls, errors first.
    expect(structured.next).to.have.length(3);
    expect(structured.next[0]).to.deep.equal(errors?.follow_up[0]?.call);
    const { error, warning, info } = structured.counts;
    expect(summary).to.equal(
      `${structured.findings.length} findings (${error} error, ${warning} warning, ${info} info) in the last 15m against the 15m before.`,
    );
  });

  it("keeps the first findings within max_bytes, continuing with the same windows fixed", async () => {
    const { structured, summary } = await callTool(runAudit, { until: UNTIL, max_bytes: 2048 }, query.api);
    expect(structured.truncated).to.equal(true);
    expect(structured.findings.length).to.be.below(ALL_ANOMALIES.length);
    expect(structured.continuation?.arguments).to.deep.equal({
      until: structured.window.current_end,
      max_bytes: 32768,
    });
    expect(summary).to.match(new RegExp(`; ${structured.findings.length} shown within max_bytes\\.$`));
  });

  it("passes windows as minutes and lets the API refuse what it refuses", async () => {
    const { structured } = await callTool(
      runAudit,
      { until: UNTIL, lookback: "30m", baseline: "1h", service: "mailer" },
      query.api,
    );
    expect(structured.window).to.deep.include({ current: "30m", baseline: "1h" });
    expect(structured.parameters.service).to.equal("mailer");
    const refusal = await runAudit
      .run({ lookback: "ten minutes" }, { api: query.api, baseUrl: TOOL_BASE_URL, maxBytes: 16384 })
      .catch((e: unknown) => e);
    expect((refusal as { code?: string }).code).to.equal("invalid_argument");
    expect((refusal as Error).message).to.match(/^lookback: invalid duration/);
    const negative = await runAudit
      .run({ min_duration_ms: -1 }, { api: query.api, baseUrl: TOOL_BASE_URL, maxBytes: 16384 })
      .catch((e: unknown) => e);
    expect((negative as { code?: string }).code).to.equal("invalid_argument");
    const late = await runAudit
      .run({ lookback: "2d" }, { api: query.api, baseUrl: TOOL_BASE_URL, maxBytes: 16384 })
      .catch((e: unknown) => e);
    expect((late as { code?: string }).code).to.equal("invalid_argument");
  });
});

describe("audit follow-ups as tool calls", () => {
  it("reads the audit's shell-quoted words back", () => {
    const words = ["traces", "--operation", "POST /pay", "--service", "it's", "--x", "a\\b $y"];
    expect(shellWords(obsCommand(...words) ?? "")).to.deep.equal(["obs", ...words]);
  });

  it("translates each command the audit writes, and nothing it cannot say exactly", () => {
    expect(followUpCall("obs spans --service shop --operation db.query --since 15m", "w")).to.deep.equal({
      tool: "search_spans",
      arguments: { service: "shop", operation: "db.query", lookback: "15m" },
      why: "w",
    });
    expect(
      followUpCall("obs traces --service shop --operation 'GET /cart' --duration-min 100 --since 1h", "w")?.arguments,
    ).to.deep.equal({ service: "shop", operation: "GET /cart", min_duration_ms: 100, lookback: "1h" });
    expect(followUpCall("obs metrics --service mailer --since 15m", "w")?.tool).to.equal("list_metrics");
    expect(followUpCall("obs trace-logs 0123456789abcdef0123456789abcdef", "w")?.arguments).to.deep.equal({
      trace_id: "0123456789abcdef0123456789abcdef",
      lookback: "24h",
    });
    expect(followUpCall("obs traces --colour red", "w")).to.equal(null);
    expect(followUpCall("obs log-stats --service shop", "w")).to.equal(null);
    expect(followUpCall("obs monitor status", "w")).to.equal(null);
    expect(followUpCall("curl 'unterminated", "w")).to.equal(null);
  });
});

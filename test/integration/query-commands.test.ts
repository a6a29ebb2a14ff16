import { execFile } from "node:child_process";
import { expect } from "chai";
import { packagePath } from "../../shared/package-root.js";
import { type CollectorProcess, startCollectorProcess } from "../helpers/collector-process.js";
import { postJson } from "../helpers/http.js";
import { runObs } from "../helpers/obs-cli.js";
import { hexId, logsRequest, traceRequest } from "../helpers/otlp-builders.js";
import { cliDocumentValidator } from "../helpers/schema-validator.js";

const validateEnvelope = cliDocumentValidator();
const MS = 1_000_000n;

describe("obs query commands: services, traces, trace (real collector)", function () {
  this.timeout(60_000);
  let obsd: CollectorProcess;
  let env: NodeJS.ProcessEnv;
  const traceId = hexId(42, 16);

  before(async () => {
    obsd = await startCollectorProcess();
    env = { OBS_STATE_DIR: obsd.stateDir, OBS_MONITOR_URL: obsd.url };
    const now = BigInt(Date.now()) * MS;
    await postJson(
      `${obsd.url}/v1/traces`,
      traceRequest("shop", [
        {
          traceId,
          spanId: hexId(1, 8),
          name: "GET /cart",
          startNs: now,
          durationNs: 30n * MS,
          attributes: { "http.route": "/cart" },
        },
        {
          traceId,
          spanId: hexId(2, 8),
          parentSpanId: hexId(1, 8),
          name: "\u001b[31mevil\u001b[0m",
          startNs: now + MS,
          error: true,
        },
      ]),
    );
  });
  after(async () => {
    await obsd.stop();
  });

  it("lists services and traces as tables, with full ids", async () => {
    const services = await runObs(["services"], { env });
    expect(services.code).to.equal(0);
    expect(services.stdout).to.match(/^SERVICE\s+LAST SEEN\nshop\s+\d{4}-/);
    const traces = await runObs(["traces", "--status", "error", "attr.http.route=/cart"], { env });
    expect(traces.code, traces.stderr).to.equal(0);
    expect(traces.stdout).to.include(traceId);
    expect(traces.stdout).to.include("shop: GET /cart");
  });

  it("writes exactly one obs.cli/v1 document with --json", async () => {
    for (const args of [
      ["services", "--json"],
      ["traces", "--json", "--limit", "5"],
      ["trace", traceId, "--json", "--include", "spans"],
    ]) {
      const result = await runObs(args, { env });
      expect(result.code, `${args} ${result.stderr}`).to.equal(0);
      const document = JSON.parse(result.stdout);
      expect(validateEnvelope(document), JSON.stringify(validateEnvelope.errors)).to.equal(true);
    }
    const traces = JSON.parse((await runObs(["traces", "--json"], { env })).stdout);
    expect(traces.data[0]).to.include({ trace_id: traceId, root_operation: "GET /cart", span_count: 2 });
    expect(traces.page).to.include({ limit: 20, lookback: "15m", returned: 1, truncated: false, next_cursor: null });
  });

  it("prints a trace as a waterfall in tree order, then its web UI link, and makes escape sequences from telemetry harmless", async () => {
    const result = await runObs(["trace", traceId], { env: { ...env, COLUMNS: "90" } });
    expect(result.code).to.equal(0);
    const lines = result.stdout.trim().split("\n");
    expect(lines[0]).to.match(/^trace [0-9a-f]{32} {2}error {2}30 ms {2}2 spans/);
    expect(lines[1]).to.match(/^ {2}OFFSET +DURATION +TIMELINE +SPAN$/);
    expect(lines[2]).to.match(/^ {2}\+0 ms +30 ms {2}\|={30}\| {2}GET \/cart {2}\[shop\]/);
    expect(lines[3]).to.match(/^ {2}\+1 ms +1 ms {2}\| #+ +\| {4}! \\x1b\[31mevil\\x1b\[0m {2}\[shop\] .* error$/);
    expect(result.stdout).not.to.include("\u001b");
    expect(lines.at(-1)).to.equal(`web UI: ${obsd.url}/ui/traces/${traceId}`);
  });

  it("ends with the spec's exit codes", async () => {
    expect((await runObs(["traces", "--since", "25h"], { env })).code).to.equal(2);
    expect((await runObs(["trace", "nothex"], { env })).code).to.equal(2);
    expect((await runObs(["traces", "--db", "x.sqlite"], { env })).code).to.equal(2);
    const missing = await runObs(["trace", hexId(999, 16), "--json"], { env });
    expect(missing.code).to.equal(4);
    expect(JSON.parse(missing.stdout).error.code).to.equal("not_found");
    // An explicit URL is used exactly: no fallback to the running collector.
    const down = await runObs(["traces", "--base-url", "http://127.0.0.1:1", "--json"], { env });
    expect(down.code).to.equal(3);
    expect(JSON.parse(down.stdout).error.code).to.equal("collector_unavailable");
  });

  it("searches spans and logs, and lists a trace's and a span's correlated logs", async () => {
    await postJson(
      `${obsd.url}/v1/logs`,
      logsRequest("shop", [
        { timeNs: BigInt(Date.now()) * MS, body: "cart checked out", traceId, spanId: hexId(1, 8), severityNumber: 9 },
      ]),
    );
    const spans = await runObs(["spans", "--status", "error"], { env });
    expect(spans.code, spans.stderr).to.equal(0);
    expect(spans.stdout).to.include(hexId(2, 8));
    const errors = JSON.parse((await runObs(["spans", "--status", "error", "--json"], { env })).stdout);
    expect(validateEnvelope(errors), JSON.stringify(validateEnvelope.errors)).to.equal(true);
    expect(errors.data.map((span: any) => span.span_id)).to.deep.equal([hexId(2, 8)]);
    const byAttr = JSON.parse((await runObs(["spans", "attr.http.route=/cart", "--json"], { env })).stdout);
    expect(byAttr.data.map((span: any) => span.span_id)).to.deep.equal([hexId(1, 8)]);
    expect(byAttr.data[0].attributes).to.deep.equal({ "http.route": "/cart" });
    for (const args of [
      ["logs", "--json"],
      ["trace-logs", traceId, "--json"],
      ["span-logs", hexId(1, 8), "--json"],
    ]) {
      const result = await runObs(args, { env });
      expect(result.code, `${args} ${result.stderr}`).to.equal(0);
      const document = JSON.parse(result.stdout);
      expect(validateEnvelope(document), JSON.stringify(validateEnvelope.errors)).to.equal(true);
      expect(document.data.map((log: any) => log.body)).to.deep.equal(["cart checked out"]);
    }
    expect((await runObs(["logs", "--severity", "info"], { env })).stdout).to.match(
      /INFO\s+shop\s+[0-9a-f]{32}\s+cart checked out/,
    );
    expect((await runObs(["span-logs", "xyz"], { env })).code).to.equal(2);
  });

  it("reads free-form text from stdin when given -", async () => {
    const result = await new Promise<{ code: number; stdout: string }>((resolve) => {
      const child = execFile(
        process.execPath,
        [packagePath("bin", "obs.js"), "logs", "--contains", "-", "--json"],
        { env: { ...process.env, ...env } },
        (error, stdout) => resolve({ code: error ? 1 : 0, stdout }),
      );
      child.stdin?.end("checked out\n");
    });
    expect(result.code).to.equal(0);
    expect(JSON.parse(result.stdout).data.map((log: any) => log.body)).to.deep.equal(["cart checked out"]);
  });

  it("repeats text read from stdin in the next page's command, given as --contains - or --contains=-", async () => {
    const now = BigInt(Date.now()) * MS;
    await postJson(
      `${obsd.url}/v1/logs`,
      logsRequest("stdin", [
        { timeNs: now - 2n * MS, body: "piped text one" },
        { timeNs: now - MS, body: "piped text two" },
      ]),
    );
    for (const flag of [["--contains", "-"], ["--contains=-"]]) {
      const result = await new Promise<{ code: number; stdout: string }>((resolve) => {
        const child = execFile(
          process.execPath,
          [packagePath("bin", "obs.js"), "logs", ...flag, "--limit", "1"],
          { env: { ...process.env, ...env } },
          (error, stdout) => resolve({ code: error ? 1 : 0, stdout }),
        );
        child.stdin?.end("piped text\n");
      });
      expect(result.code, flag.join(" ")).to.equal(0);
      expect(result.stdout, flag.join(" ")).to.include("piped text two");
      const hint = /next page: obs logs (.*) --limit 1 --cursor \S+$/m.exec(result.stdout);
      expect(hint?.[1], flag.join(" ")).to.equal(
        flag.length === 2 ? "--contains 'piped text'" : "'--contains=piped text'",
      );
    }
  });

  it("shows a log without a body as - in the BODY column, as other absent values", async () => {
    const traceId = hexId(700, 16);
    const request = logsRequest("bodiless", [{ timeNs: BigInt(Date.now()) * MS, body: "", traceId }]) as any;
    delete request.resourceLogs[0].scopeLogs[0].logRecords[0].body;
    await postJson(`${obsd.url}/v1/logs`, request);
    const document = JSON.parse((await runObs(["logs", "--service", "bodiless", "--json"], { env })).stdout);
    expect(document.data.map((log: any) => log.body)).to.deep.equal([null]);
    const table = await runObs(["logs", "--service", "bodiless"], { env });
    expect(table.stdout).to.match(new RegExp(`^\\S+ +INFO +bodiless +${traceId} +-$`, "m"));
  });

  it("shows one span, and aggregates and facets, as tables or documents", async () => {
    const span = await runObs(["span", hexId(2, 8)], { env });
    expect(span.code, span.stderr).to.equal(0);
    expect(span.stdout).to.match(/parent {2}GET \/cart \(0000000000000002\)/);
    expect(span.stdout).not.to.include("\u001b");
    for (const args of [
      ["span", hexId(2, 8), "--json"],
      ["trace-stats", "service", "count", "--json"],
      ["trace-stats", "attr.http.route", "p95_duration", "--json"],
      ["log-stats", "severity", "--json"],
      ["facets", "traces", "attribute_keys", "--json"],
    ]) {
      const result = await runObs(args, { env });
      expect(result.code, `${args} ${result.stderr}`).to.equal(0);
      expect(
        validateEnvelope(JSON.parse(result.stdout)),
        `${args}: ${JSON.stringify(validateEnvelope.errors)}`,
      ).to.equal(true);
    }
    const stats = JSON.parse((await runObs(["trace-stats", "service", "count", "--json"], { env })).stdout);
    expect(stats.data).to.deep.equal([{ group: "shop", agg: "count", value: 1, unit: "traces", count: 1 }]);
    const table = await runObs(["trace-stats", "status", "error_rate"], { env });
    expect(table.stdout).to.match(/^GROUP\s+VALUE\s+COUNT\nerror\s+1 fraction\s+1/);
    const facets = await runObs(["facets", "traces", "attribute_values", "--key", "http.route"], { env });
    expect(facets.stdout).to.match(/^VALUE\s+COUNT\n\/cart\s+1/);
    expect((await runObs(["trace-stats", "colour", "count"], { env })).code).to.equal(2);
    expect((await runObs(["facets", "logs", "operation"], { env })).code).to.equal(2);
    expect((await runObs(["span", hexId(777, 8)], { env })).code).to.equal(4);
  });

  it("returns log bodies and attribute maps byte for byte in every command that shows logs", async () => {
    const otherTrace = hexId(43, 16);
    const spanId = hexId(50, 8);
    const now = BigInt(Date.now()) * MS;
    await postJson(`${obsd.url}/v1/traces`, traceRequest("shop", [{ traceId: otherTrace, spanId, startNs: now }]));
    const kv = (values: Record<string, unknown>) => ({
      kvlistValue: { values: Object.entries(values).map(([key, value]) => ({ key, value })) },
    });
    await postJson(`${obsd.url}/v1/logs`, {
      resourceLogs: [
        {
          resource: { attributes: [{ key: "service.name", value: { stringValue: "shop" } }] },
          scopeLogs: [
            {
              scope: { name: "test" },
              logRecords: [
                {
                  timeUnixNano: now.toString(),
                  severityNumber: 9,
                  traceId: otherTrace,
                  spanId,
                  body: kv({ someCamel: kv({ innerCamel: { intValue: "1" } }) }),
                  attributes: [{ key: "requestInfo", value: kv({ userId: { stringValue: "u1" } }) }],
                },
              ],
            },
          ],
        },
      ],
    });
    for (const args of [
      ["logs", "--json"],
      ["trace", otherTrace, "--include", "logs", "--json"],
      ["trace-logs", otherTrace, "--json"],
      ["span-logs", spanId, "--json"],
    ]) {
      const result = await runObs(args, { env });
      expect(result.code, `${args} ${result.stderr}`).to.equal(0);
      const document = JSON.parse(result.stdout);
      const logs = Array.isArray(document.data) ? document.data : document.data.logs;
      const log = logs.find((record: any) => record.trace_id === otherTrace);
      expect(log.body, args.join(" ")).to.deep.equal({ someCamel: { innerCamel: 1 } });
      expect(log.attributes, args.join(" ")).to.deep.equal({ requestInfo: { userId: "u1" } });
      expect(log).to.have.property("span_id", spanId);
    }
  });

  it("prints a paging hint that fetches the next page when run as printed, filters included", async () => {
    const start = BigInt(Date.now() - 60_000) * MS;
    await postJson(
      `${obsd.url}/v1/traces`,
      traceRequest(
        "pager",
        [0, 1, 2].map((n) => ({
          traceId: hexId(300 + n, 16),
          spanId: hexId(300 + n, 8),
          startNs: start + BigInt(n) * MS,
        })),
      ),
    );
    // Each page's ids: trace ids for traces, span ids for spans; three of each were sent.
    for (const [first, idBytes] of [
      [["traces", "--service", "pager", "--limit", "1", "--since", "1h"], 16],
      [["spans", "--service", "pager", "--limit", "2", "--since", "1h"], 8],
    ] as const) {
      const seen = new Set<string>();
      let args: string[] = [...first];
      for (let page = 0; page < 5; page += 1) {
        const result = await runObs(args, { env });
        expect(result.code, `${args.join(" ")}: ${result.stderr}`).to.equal(0);
        for (const id of result.stdout.match(new RegExp(`\\b[0-9a-f]{${idBytes * 2}}\\b`, "g")) ?? []) seen.add(id);
        const hint = /next page: (obs .*)$/m.exec(result.stdout);
        if (!hint) break;
        const words = (hint[1] as string).split(" ");
        expect(words.slice(1, first.length + 1), "the hint keeps the filters").to.deep.equal([...first]);
        args = words.slice(1);
      }
      expect([...seen].sort(), first[0]).to.deep.equal([0, 1, 2].map((n) => hexId(300 + n, idBytes)));
    }
  });

  it("lists a span's logs as obs logs --span-id does: its span not stored, or its id reused in a newer trace", async () => {
    const now = BigInt(Date.now()) * MS;
    const unstored = hexId(500, 8);
    const reused = hexId(501, 8);
    await postJson(
      `${obsd.url}/v1/traces`,
      traceRequest("reuse", [
        { traceId: hexId(501, 16), spanId: reused, startNs: now - 10n * MS },
        { traceId: hexId(502, 16), spanId: reused, startNs: now - 5n * MS },
      ]),
    );
    await postJson(
      `${obsd.url}/v1/logs`,
      logsRequest("reuse", [
        { timeNs: now - 9n * MS, body: "span never arrived", traceId: hexId(500, 16), spanId: unstored },
        { timeNs: now - 9n * MS, body: "in the older trace", traceId: hexId(501, 16), spanId: reused },
      ]),
    );
    for (const [spanId, body] of [
      [unstored, "span never arrived"],
      [reused, "in the older trace"],
    ] as const) {
      const logs = JSON.parse((await runObs(["logs", "--span-id", spanId, "--json"], { env })).stdout);
      expect(logs.data.map((log: any) => log.body)).to.deep.equal([body]);
      const result = await runObs(["span-logs", spanId, "--json"], { env });
      expect(result.code, `span-logs ${spanId}: ${result.stdout}`).to.equal(0);
      expect(JSON.parse(result.stdout).data).to.deep.equal(logs.data);
      expect((await runObs(["span-logs", spanId], { env })).stdout).to.include(body);
    }
    // An id with no logs is an empty list, exit 0, for a trace as for a span (README: exit codes).
    for (const args of [
      ["span-logs", hexId(503, 8)],
      ["trace-logs", hexId(503, 16)],
    ]) {
      const none = await runObs(args, { env });
      expect(none.code, args.join(" ")).to.equal(0);
      expect(none.stdout, args.join(" ")).to.equal("no correlated logs\n");
    }
  });

  it("names a root span whose name is empty as unnamed, not as a root that has not arrived", async () => {
    const traceId = hexId(600, 16);
    await postJson(
      `${obsd.url}/v1/traces`,
      traceRequest("nameless", [{ traceId, spanId: hexId(600, 8), name: "", startNs: BigInt(Date.now()) * MS }]),
    );
    const result = await runObs(["traces", "--service", "nameless"], { env });
    expect(result.code, result.stderr).to.equal(0);
    expect(result.stdout).to.match(new RegExp(`^${traceId} .* nameless: \\(unnamed\\)$`, "m"));
  });

  it("filters by the words after -- and pages on from the hint it prints for them", async () => {
    const start = BigInt(Date.now() - 60_000) * MS;
    await postJson(
      `${obsd.url}/v1/traces`,
      traceRequest(
        "dashes",
        [0, 1, 2, 3].map((n) => ({
          traceId: hexId(400 + n, 16),
          spanId: hexId(400 + n, 8),
          startNs: start + BigInt(n) * MS,
          attributes: { "http.route": n < 2 ? "/dash" : "/other" },
        })),
      ),
    );
    const seen: string[] = [];
    let args = ["traces", "--since", "1h", "--limit", "1", "--", "attr.http.route=/dash"];
    for (let page = 0; page < 4; page += 1) {
      const result = await runObs(args, { env });
      expect(result.code, `${args.join(" ")}: ${result.stderr}`).to.equal(0);
      seen.push(...(result.stdout.match(/^[0-9a-f]{32}\b/gm) ?? []));
      const hint = /next page: (obs .*)$/m.exec(result.stdout);
      if (!hint) break;
      args = (hint[1] as string).split(" ").slice(1);
    }
    expect(seen).to.deep.equal([hexId(401, 16), hexId(400, 16)]);
  });

  it("shows a span's exception event, an error span's status message and a trace's logs", async () => {
    const failing = hexId(60, 16);
    const spanId = hexId(61, 8);
    const start = BigInt(Date.now() - 10_000) * MS;
    const text = (value: string) => ({ stringValue: value });
    await postJson(`${obsd.url}/v1/traces`, {
      resourceSpans: [
        {
          resource: { attributes: [{ key: "service.name", value: text("pay") }] },
          scopeSpans: [
            {
              scope: { name: "test" },
              spans: [
                {
                  traceId: failing,
                  spanId,
                  name: "charge",
                  kind: 2,
                  startTimeUnixNano: start.toString(),
                  endTimeUnixNano: (start + 1270n * MS).toString(),
                  status: { code: 2, message: "card declined" },
                  events: [
                    {
                      name: "exception",
                      timeUnixNano: (start + 52n * MS + MS / 2n).toString(),
                      attributes: [
                        { key: "exception.type", value: text("CardError") },
                        { key: "exception.message", value: text("declined by issuer") },
                        { key: "exception.stacktrace", value: text("CardError: declined\n    at charge (pay.js:10)") },
                      ],
                    },
                  ],
                },
              ],
            },
          ],
        },
      ],
    });
    await postJson(
      `${obsd.url}/v1/logs`,
      logsRequest("pay", [
        { timeNs: start + 100n * MS, body: "charge failed", traceId: failing, spanId, severityNumber: 17 },
      ]),
    );
    const span = await runObs(["span", spanId], { env });
    expect(span.code, span.stderr).to.equal(0);
    expect(span.stdout).to.include("1.27 s  error: card declined");
    expect(span.stdout).to.include("    +52.5 ms  exception\n      exception.type = CardError\n");
    expect(span.stdout).to.include("      exception.message = declined by issuer\n");
    expect(span.stdout).to.include(
      "      exception.stacktrace = CardError: declined\n              at charge (pay.js:10)\n",
    );
    const spans = await runObs(["spans", "--status", "error", "--service", "pay"], { env });
    expect(spans.stdout).to.match(/^SPAN ID .* MESSAGE\n[0-9a-f]{16} .* 1\.27 s +error +pay +charge +card declined$/m);
    const withLogs = await runObs(["trace", failing, "--include", "logs"], { env });
    expect(withLogs.code, withLogs.stderr).to.equal(0);
    expect(withLogs.stdout).to.include(`correlated logs (1)\n  +100 ms  ERROR  [pay]  ${spanId}  charge failed\n`);
  });
});

import { expect } from "chai";
import { formatDuration } from "../../../client/render/duration-text.js";
import { renderSpanDetail, type SpanView } from "../../../client/render/span-detail.js";
import {
  MAX_INDENT_DEPTH,
  renderTraceWaterfall,
  type TraceView,
  timelineBar,
} from "../../../client/render/trace-waterfall.js";
import type { SpanTreeNode } from "../../../shared/api-records.js";
import { logBodyText } from "../../../shared/log-text.js";

const T0 = "2026-01-02T03:04:05.000000000Z";

/** `ms` after T0, as the API writes timestamps. */
function at(ms: number): string {
  const ns = 5_000_000_000n + BigInt(Math.round(ms * 1e6));
  return `2026-01-02T03:04:${(ns / 1_000_000_000n).toString().padStart(2, "0")}.${(ns % 1_000_000_000n).toString().padStart(9, "0")}Z`;
}

/** A tree node as the API sends it (a flat list, each node with its depth). */
function node(spanId: string, startMs: number, durationMs: number, extra: Partial<SpanTreeNode> = {}): SpanTreeNode {
  const flat = {
    spanId,
    parentSpanId: null,
    serviceName: "shop",
    operation: `op ${spanId}`,
    kind: "server",
    startTime: at(startMs),
    durationMs,
    status: "ok",
    depth: 0,
    missingParent: false,
    ...extra,
  };
  return flat as SpanTreeNode;
}

/** A node as collectors before the flat tree sent it, with its descendants nested. */
type Nested = SpanTreeNode & { children: Nested[] };

function trace(tree: SpanTreeNode[], durationMs: number, extra: Partial<TraceView> = {}): TraceView {
  return {
    traceId: "a".repeat(32),
    rootServiceName: "shop",
    rootOperation: "op",
    rootSpanId: tree[0]?.spanId ?? null,
    startTime: T0,
    endTime: at(durationMs),
    durationMs,
    spanCount: tree.length,
    errorCount: 0,
    status: "ok",
    services: ["shop"],
    tree,
    ...extra,
  };
}

describe("human output: durations, the trace waterfall, the span detail", () => {
  it("prints durations in one format everywhere", () => {
    expect([0.85, 1, 52.5, 999.96, 1270, 90_000].map(formatDuration)).to.deep.equal([
      "850 µs",
      "1 ms",
      "52.5 ms",
      "1 s",
      "1.27 s",
      "1.5 min",
    ]);
  });

  it("prints a duration that rounds up to the next unit as one of it, not 0.999 of it", () => {
    expect(
      [0.9996, 59_940, 59_950, 59_999, 60_000, 3_597_000, 3_599_999, 3_600_000, -59_950].map(formatDuration),
    ).to.deep.equal(["1 ms", "59.9 s", "1 min", "1 min", "1 min", "1 h", "1 h", "1 h", "-1 min"]);
  });

  it("shows each span's start offset, duration and a bar on the trace's timeline, errors marked", () => {
    const child = node("0000000000000002", 50, 25, { status: "error", depth: 1 });
    const root = node("0000000000000001", 0, 100);
    const lines = renderTraceWaterfall(trace([root, child], 100), { columns: 60 });
    expect(lines[0]).to.match(/^trace a{32} {2}ok {2}100 ms {2}2 spans/);
    expect(lines[1]).to.match(/^ {2}OFFSET {2}DURATION {2}TIMELINE +SPAN$/);
    // 60 columns: 20 cells of bar, 5 ms each.
    expect(lines[2]).to.equal(`  +0 ms     100 ms  |${"=".repeat(20)}|  op 0000000000000001  [shop]  0000000000000001`);
    expect(lines[3]).to.equal(
      `  +50 ms     25 ms  |${" ".repeat(10)}${"#".repeat(5)}${" ".repeat(5)}|    ! op 0000000000000002  [shop]  0000000000000002  error`,
    );
    expect(timelineBar(0n, 0n, 100n, 10, "=")).to.equal(`=${" ".repeat(9)}`);
    expect(timelineBar(100n, 0n, 100n, 10, "=")).to.equal(`${" ".repeat(9)}=`);
  });

  it("draws a 20,000-deep parent chain, flat or nested, without running out of stack", () => {
    const flat = Array.from({ length: 20_000 }, (_, depth) => node(String(depth), depth, 20_000 - depth, { depth }));
    const root: Nested = { ...(flat[0] as SpanTreeNode), children: [] };
    let parent = root;
    for (const next of flat.slice(1)) {
      const child: Nested = { ...next, children: [] };
      parent.children.push(child);
      parent = child;
    }
    for (const tree of [flat, [root]]) {
      const lines = renderTraceWaterfall(trace(tree, 20_000), { columns: 80 });
      expect(lines).to.have.length(20_002);
      // Indentation stops growing past MAX_INDENT_DEPTH; the depth is written instead.
      expect(lines[lines.length - 1]).to.include(`${"  ".repeat(MAX_INDENT_DEPTH)}(depth 19999) op 19999`);
      expect(lines[3]).to.include("    op 1  [shop]");
    }
  });

  it("prints a trace's correlated logs on its timeline when they are included", () => {
    const log = {
      logId: "l",
      timestamp: at(30),
      time: at(30),
      observedTime: null,
      severityNumber: 17,
      severityText: null,
      body: "payment \u001b[31mfailed",
      attributes: {},
      traceId: "a".repeat(32),
      spanId: "0000000000000001",
      serviceName: "shop",
      resource: { attributes: {}, schemaUrl: null, droppedAttributesCount: 0 },
      scope: { name: "s", version: null, attributes: {}, schemaUrl: null, droppedAttributesCount: 0 },
      flags: 0,
      eventName: null,
      droppedAttributesCount: 0,
    };
    const lines = renderTraceWaterfall(trace([node("0000000000000001", 0, 100)], 100, { logs: [log] }), {
      columns: 60,
    });
    expect(lines.slice(-2)).to.deep.equal([
      "correlated logs (1)",
      "  +30 ms  ERROR  [shop]  0000000000000001  payment \\x1b[31mfailed",
    ]);
  });

  it("shows a log without a body as other absent values are shown, not as null", () => {
    const log = {
      logId: "l",
      timestamp: at(30),
      time: at(30),
      observedTime: null,
      severityNumber: 9,
      severityText: null,
      body: null,
      attributes: {},
      traceId: "a".repeat(32),
      spanId: "0000000000000001",
      serviceName: "shop",
      resource: { attributes: {}, schemaUrl: null, droppedAttributesCount: 0 },
      scope: { name: "s", version: null, attributes: {}, schemaUrl: null, droppedAttributesCount: 0 },
      flags: 0,
      eventName: null,
      droppedAttributesCount: 0,
    };
    const lines = renderTraceWaterfall(trace([node("0000000000000001", 0, 100)], 100, { logs: [log] }), {
      columns: 60,
    });
    expect(lines.at(-1)).to.equal("  +30 ms  INFO  [shop]  0000000000000001  -");
    expect(logBodyText(null)).to.equal(null);
    expect(logBodyText("null")).to.equal("null");
    expect(logBodyText({ a: [1] })).to.equal('{"a":[1]}');
  });

  it("shows a span's events: an exception's type, message and each line of its stack", () => {
    const span = {
      traceId: "a".repeat(32),
      spanId: "0000000000000002",
      parentSpanId: null,
      serviceName: "shop",
      operation: "charge",
      kind: "server",
      startTime: at(0),
      endTime: at(30),
      startTimeUnixNano: "0",
      endTimeUnixNano: "0",
      durationNs: 30_000_000,
      status: { code: "error", message: "card declined" },
      attributes: { "http.route": "/pay" },
      events: [
        {
          name: "exception",
          time: at(12.5),
          timeUnixNano: "0",
          attributes: {
            "exception.type": "CardError",
            "exception.message": "declined",
            "exception.stacktrace": "CardError: declined\n    at charge (pay.js:10)",
          },
          droppedAttributesCount: 0,
        },
      ],
      links: [],
      resource: { attributes: {}, schemaUrl: null, droppedAttributesCount: 0 },
      scope: { name: "s", version: null, attributes: {}, schemaUrl: null, droppedAttributesCount: 0 },
      traceState: null,
      flags: 0,
      droppedAttributesCount: 0,
      droppedEventsCount: 0,
      droppedLinksCount: 0,
      trace: null,
      parent: null,
      missingParent: false,
    } as SpanView;
    const lines = renderSpanDetail(span);
    expect(lines[0]).to.equal("span 0000000000000002  charge  [shop]  server  30 ms  error: card declined");
    expect(lines.slice(-6)).to.deep.equal([
      "  events (1)",
      "    +12.5 ms  exception",
      "      exception.type = CardError",
      "      exception.message = declined",
      "      exception.stacktrace = CardError: declined",
      "              at charge (pay.js:10)",
    ]);
  });
});

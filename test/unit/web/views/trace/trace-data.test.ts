import { expect } from "chai";
import { criticalSegments } from "../../../../../client/web/views/trace/critical-segments.js";
import { attributeRows } from "../../../../../client/web/views/trace/detail-fields.js";
import { logsBySpan, traceLogLines } from "../../../../../client/web/views/trace/trace-log-lines.js";
import {
  isoToUnixNano,
  offsetMsOf,
  spansFromTree,
  traceExtentMs,
} from "../../../../../client/web/views/trace/trace-spans.js";
import type { LogRecord } from "../../../../../shared/api-records.js";

describe("trace data for the waterfall", () => {
  it("reads the API's ISO times to the nanosecond and measures offsets exactly", () => {
    expect(isoToUnixNano("2026-11-25T12:58:08.123456789Z")).to.equal("1795611488123456789");
    expect(isoToUnixNano("2026-11-25T12:58:08Z")).to.equal("1795611488000000000");
    expect(isoToUnixNano("2026-11-25T12:58:08.5Z")).to.equal("1795611488500000000");
    expect(isoToUnixNano("garbage")).to.equal("0");
    expect(offsetMsOf("1795611489000000001", "1795611488999999000")).to.be.closeTo(0.001001, 1e-12);
  });

  it("turns tree nodes into spans with an end at start plus duration", () => {
    const [span] = spansFromTree(
      [
        {
          spanId: "b",
          parentSpanId: "a",
          serviceName: "checkout",
          operation: "POST /cart",
          kind: "server",
          startTime: "2026-11-25T12:58:08.005000000Z",
          durationMs: 105.5,
          status: "ok",
          depth: 1,
          missingParent: false,
        },
      ],
      "1795611488000000000",
    );
    expect(span).to.include({ offsetMs: 5, endTimeUnixNano: "1795611488110500000", service: "checkout" });
    expect(traceExtentMs(span ? [span] : [], 100)).to.equal(110.5);
  });

  it("puts the critical path on each span's bar as offsets", () => {
    const at = (ms: number) => String(1_000_000_000_000_000 + ms * 1_000_000);
    const spans = [
      { spanId: "r", parentSpanId: null, startTimeUnixNano: at(0), endTimeUnixNano: at(100) },
      { spanId: "a", parentSpanId: "r", startTimeUnixNano: at(10), endTimeUnixNano: at(60) },
    ];
    expect([...criticalSegments(spans, at(0))]).to.deep.equal([
      [
        0,
        [
          [0, 10],
          [60, 100],
        ],
      ],
      [1, [[10, 60]]],
    ]);
  });

  it("lists a trace's logs oldest first with their offsets, bodies as text, and groups them by span", () => {
    const log = (
      logId: string,
      timestamp: string,
      body: LogRecord["body"],
      spanId: string | null,
      severityNumber = 9,
      severityText: string | null = null,
    ) => ({ logId, timestamp, body, spanId, serviceName: "api", severityText, severityNumber }) as LogRecord;
    const lines = traceLogLines(
      [
        log("2", "2026-11-25T12:58:08.090000000Z", { event: "charge.failed" }, "s1", 17),
        log("1", "2026-11-25T12:58:08.006000000Z", "<b>cart</b>", "s2"),
        log("3", "2026-11-25T12:58:08.100000000Z", "no span", null),
      ],
      "1795611488000000000",
    );
    expect(lines.map((line) => [line.logId, line.offsetMs, line.severity, line.body])).to.deep.equal([
      ["1", 6, "INFO", "<b>cart</b>"],
      ["2", 90, "ERROR", '{"event":"charge.failed"}'],
      ["3", 100, "INFO", "no span"],
    ]);
    expect([...logsBySpan(lines).keys()]).to.deep.equal(["s2", "s1"]);
    expect(lines.map((line) => line.level)).to.deep.equal(["info", "error", "info"]);
  });

  it("reads a log's severity as the Logs view does: the text decides when the number is 0", () => {
    const at = "2026-11-25T12:58:08.000000000Z";
    const log = (severityNumber: number, severityText: string | null) =>
      ({
        logId: `${severityNumber}${severityText}`,
        timestamp: at,
        body: "x",
        spanId: "s",
        serviceName: "api",
        severityText,
        severityNumber,
      }) as LogRecord;
    const [line] = traceLogLines([log(0, "ERROR")], "1795611488000000000");
    expect(line).to.include({ level: "error", severity: "ERROR" });
    const read = (n: number, text: string | null) => {
      const [only] = traceLogLines([log(n, text)], "1795611488000000000");
      return [only?.level, only?.severity];
    };
    expect(read(0, null)).to.deep.equal(["unset", "–"]);
    expect(read(10, "notice")).to.deep.equal(["info", "notice"]);
    expect(read(22, null)).to.deep.equal(["fatal", "FATAL"]);
    expect(read(0, "warning")).to.deep.equal(["warn", "warning"]);
  });

  it("sorts attributes by key and writes every value as text", () => {
    expect(attributeRows({ "z.n": 2, a: "x", "m.list": [1, "two"], b: true })).to.deep.equal([
      ["a", "x"],
      ["b", "true"],
      ["m.list", '[1,"two"]'],
      ["z.n", "2"],
    ]);
  });
});

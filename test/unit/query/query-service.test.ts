import { expect } from "chai";
import { QueryService } from "../../../daemon/query/query-service.js";
import type { LogQuery, PageRequest, SpanQuery, TraceQuery } from "../../../daemon/query/telemetry-reader.js";
import { QueryError, type QueryErrorCode } from "../../../shared/query-error.js";
import type { SpanTreeNodeWithAttributes } from "../../../shared/query-types.js";
import { FakeReader, log, span } from "./fake-reader.js";

const MS = 1_000_000n;
const MINUTE = 60_000n * MS;
const NOW = 1_800_000_000_000n * MS;
const TRACE = "a".repeat(32);
const OTHER_TRACE = "b".repeat(32);
const KEY = Buffer.alloc(32, 7);

function setup(now = NOW) {
  const reader = new FakeReader();
  let clock = now;
  const service = new QueryService({ reader, now: () => clock, cursorKey: KEY });
  return {
    reader,
    service,
    setNow: (ns: bigint) => {
      clock = ns;
    },
  };
}

function refusal(run: () => unknown, code: QueryErrorCode): string {
  try {
    run();
  } catch (error) {
    expect(error).to.be.instanceOf(QueryError);
    expect((error as QueryError).code).to.equal(code);
    return (error as Error).message;
  }
  throw new Error("expected a QueryError");
}

describe("QueryService (over a fake reader)", () => {
  describe("defaults and caps", () => {
    it("lists traces over the last 15 minutes, 20 at a time, capped at 100", () => {
      const { reader, service } = setup();
      const answer = service.listTraces({});
      const query = reader.last("traces")[0] as TraceQuery;
      expect(query.page).to.deep.equal({ fromNs: NOW - 15n * MINUTE, toNs: NOW, limit: 20 });
      expect(query.attrs).to.deep.equal([]);
      expect(answer.meta).to.deep.equal({
        limit: 20,
        lookback: "15m",
        returned: 0,
        truncated: false,
        nextCursor: null,
      });
      service.listTraces({ limit: 1000 });
      expect((reader.last("traces")[0] as TraceQuery).page.limit).to.equal(100);
    });

    it("caps span and log searches at 500, with 100 by default", () => {
      const { reader, service } = setup();
      service.searchSpans({});
      expect((reader.last("spans")[0] as SpanQuery).page.limit).to.equal(100);
      service.searchSpans({ limit: 9999 });
      expect((reader.last("spans")[0] as SpanQuery).page.limit).to.equal(500);
      service.searchLogs({ limit: 501 });
      expect((reader.last("logs")[0] as LogQuery).page.limit).to.equal(500);
    });

    it("asks facets for one more than the limit, to tell a truncated list", () => {
      const { reader, service } = setup();
      reader.facetValues = [1, 2, 3].map((n) => ({ value: `v${n}`, count: n }));
      const answer = service.facets({ type: "logs", field: "severity", limit: 2 });
      expect(reader.last("facets")[2]).to.equal(3);
      expect(answer.data.map((v) => v.value)).to.deep.equal(["v1", "v2"]);
      expect(answer.meta).to.deep.equal({ limit: 2, lookback: "15m", returned: 2, truncated: true, nextCursor: null });
      service.facets({ type: "logs", field: "severity", limit: 10_000 });
      expect(reader.last("facets")[2]).to.equal(501);
    });

    it("names each aggregate's unit", () => {
      const { service } = setup();
      const row = { group: "shop", value: 3, count: 3 };
      expect(service.traceStats({ groupBy: "service", agg: "count" }).data).to.deep.equal([
        { ...row, agg: "count", unit: "traces" },
      ]);
      expect(service.traceStats({ groupBy: "service", agg: "error_rate" }).data[0]?.unit).to.equal("fraction");
      expect(service.traceStats({ groupBy: "service", agg: "p95_duration" }).data[0]?.unit).to.equal("ms");
      expect(service.logStats({ groupBy: "severity" }).data).to.deep.equal([{ ...row, agg: "count", unit: "logs" }]);
    });
  });

  describe("windows", () => {
    it("ends unpaged windows now and starts them a lookback earlier", () => {
      const { reader, service } = setup();
      const answer = service.listServices({ lookback: 3_600_000 });
      expect(reader.last("services")[0]).to.deep.equal({ fromNs: NOW - 60n * MINUTE, toNs: NOW, lookback: "1h" });
      expect(answer.meta.lookback).to.equal("1h");
      service.traceStats({ groupBy: "status", agg: "count", service: "shop", durationMin: 5 });
      const filter = reader.last("traceStats")[0] as Record<string, unknown>;
      expect(filter).to.deep.include({ fromNs: NOW - 15n * MINUTE, toNs: NOW, service: "shop", durationMinMs: 5 });
    });

    it("reads every log of one trace or span however old, unless a lookback narrows them", () => {
      const { reader, service } = setup();
      reader.spans_ = [span(TRACE, "1".repeat(16), NOW - MINUTE)];
      const answer = service.traceLogs({ traceId: TRACE });
      const page = (reader.last("logs")[0] as LogQuery).page;
      expect(page).to.deep.equal({ fromNs: 0n, toNs: 2n ** 63n - 1n, limit: 100 });
      expect(answer.meta.lookback).to.equal(null);
      service.spanLogs({ spanId: "1".repeat(16), lookback: 60_000 });
      const query = reader.last("logs")[0] as LogQuery;
      // The stored span's trace narrows the read to that trace's index.
      expect(query).to.deep.include({ traceId: TRACE, spanId: "1".repeat(16) });
      expect(query.page.fromNs).to.equal(NOW - MINUTE);
      // By the span id alone, as /api/logs?spanId= reads them, when the span is not stored (its
      // logs may be stored without it) or its id is reused in another trace.
      service.spanLogs({ spanId: "2".repeat(16) });
      expect(reader.last("logs")[0])
        .to.deep.include({ spanId: "2".repeat(16) })
        .and.not.to.have.property("traceId");
      reader.spans_.push(span("f".repeat(32), "1".repeat(16), NOW));
      service.spanLogs({ spanId: "1".repeat(16) });
      expect(reader.last("logs")[0])
        .to.deep.include({ spanId: "1".repeat(16) })
        .and.not.to.have.property("traceId");
    });

    it("ends the audit at `until`, with a baseline as long as the current window by default", () => {
      const { reader, service } = setup();
      const until = NOW - 60n * MINUTE;
      service.audit({ until, lookbackMinutes: 30 * 60_000, service: "shop" });
      expect(reader.last("auditFacts")[0]).to.deep.equal({
        untilNs: until,
        currentFromNs: until - 30n * MINUTE,
        baselineFromNs: until - 60n * MINUTE,
        graceNs: 60_000_000_000n,
        service: "shop",
      });
      service.audit({ baselineMinutes: 5 * 60_000 });
      const window = reader.last("auditFacts")[0] as Record<string, bigint>;
      expect(window.untilNs).to.equal(NOW);
      expect(window.currentFromNs).to.equal(NOW - 15n * MINUTE);
      expect(window.baselineFromNs).to.equal(NOW - 20n * MINUTE);
    });
  });

  describe("cursors", () => {
    function withLogs() {
      const context = setup();
      context.reader.logs_ = Array.from({ length: 5 }, (_, i) =>
        log(`c${i}`, NOW - BigInt(i + 1) * MINUTE, TRACE, null),
      );
      return context;
    }

    it("continue where the last page stopped, in the first page's window", () => {
      const { reader, service, setNow } = withLogs();
      const first = service.searchLogs({ limit: 2, service: "shop" });
      expect(first.data.map((l) => l.logId)).to.deep.equal(["c0", "c1"]);
      expect(first.meta.truncated).to.equal(true);
      const cursor = first.meta.nextCursor as string;
      setNow(NOW + 10n * MINUTE);
      const second = service.searchLogs({ limit: 2, service: "shop", cursor });
      expect(second.data.map((l) => l.logId)).to.deep.equal(["c2", "c3"]);
      const page = (reader.last("logs")[0] as LogQuery).page as Required<PageRequest>;
      expect([page.fromNs, page.toNs]).to.deep.equal([NOW - 15n * MINUTE, NOW]);
      expect(page.after.id).to.equal("c1");
      const third = service.searchLogs({ limit: 2, service: "shop", cursor: second.meta.nextCursor as string });
      expect(third.data.map((l) => l.logId)).to.deep.equal(["c4"]);
      expect(third.meta.nextCursor).to.equal(null);
    });

    it("treat an absent filter and one set to undefined alike", () => {
      const { service } = withLogs();
      const cursor = service.searchLogs({ limit: 2 }).meta.nextCursor as string;
      expect(service.searchLogs({ limit: 2, service: undefined, cursor }).data).to.have.length(2);
    });

    it("accept the same attribute filters given in another order, and refuse another set of them", () => {
      const { service } = withLogs();
      const attrs: [string, string][] = [
        ["http.route", "/cart"],
        ["user", "ann"],
      ];
      const attrContains: [string, string][] = [
        ["a", "x"],
        ["b", "y"],
      ];
      const cursor = service.searchLogs({ limit: 2, attrs, attrContains }).meta.nextCursor as string;
      const reordered = { attrs: [...attrs].reverse(), attrContains: [...attrContains].reverse() };
      expect(service.searchLogs({ limit: 2, ...reordered, cursor }).data).to.have.length(2);
      const spans = setup();
      spans.reader.spans_ = Array.from({ length: 5 }, (_, i) =>
        span(TRACE, `${i}`.repeat(16), NOW - BigInt(i + 1) * MS),
      );
      const spanCursor = spans.service.searchSpans({ limit: 2, attrs }).meta.nextCursor as string;
      expect(
        spans.service.searchSpans({ limit: 2, attrs: [...attrs].reverse(), cursor: spanCursor }).data,
      ).to.have.length(2);
      const others: { attrs?: [string, string][]; attrContains?: [string, string][] }[] = [
        { attrs: [["http.route", "/cart"]], attrContains },
        { attrs: [...attrs, ["x", "1"]], attrContains },
        {
          attrs: [
            ["http.route", "/cart"],
            ["user", "bob"],
          ],
          attrContains,
        },
        // The same pairs as the other kind of filter: an exact match is not a substring match.
        { attrs: attrContains, attrContains: attrs },
      ];
      for (const other of others) {
        expect(refusal(() => service.searchLogs({ limit: 2, ...other, cursor }), "invalid_argument")).to.match(
          /other filters/,
        );
      }
    });

    it("are refused with other filters, another route, or edited", () => {
      const { service } = withLogs();
      const cursor = service.searchLogs({ limit: 2, service: "shop" }).meta.nextCursor as string;
      expect(refusal(() => service.searchLogs({ cursor, service: "cart" }), "invalid_argument")).to.equal(
        "this cursor belongs to a query with other filters; repeat the same filters or drop the cursor",
      );
      expect(
        refusal(() => service.searchLogs({ cursor, service: "shop", lookback: 60_000 }), "invalid_argument"),
      ).to.match(/other filters/);
      expect(refusal(() => service.traceLogs({ traceId: TRACE, cursor }), "invalid_argument")).to.match(
        /other filters/,
      );
      expect(refusal(() => service.searchLogs({ cursor: `${cursor}x`, service: "shop" }), "invalid_argument")).to.match(
        /not issued by this collector/,
      );
    });

    it("of a truncated trace continue on the trace's spans", () => {
      const { reader, service } = setup();
      reader.spans_ = Array.from({ length: 5 }, (_, i) => span(TRACE, `${i}`.repeat(16), NOW + BigInt(i) * MS));
      const trace = service.getTrace({ traceId: TRACE, limit: 2 });
      expect(trace.meta).to.deep.include({ limit: 2, lookback: null, returned: 2, truncated: true });
      const rest = service.getTraceSpans({ traceId: TRACE, cursor: trace.meta.nextCursor as string });
      expect(rest.data.map((s) => s.spanId)).to.deep.equal(["2", "3", "4"].map((d) => d.repeat(16)));
      expect(rest.meta).to.deep.include({ limit: 10_000, truncated: false, nextCursor: null });
      expect(
        refusal(
          () => service.getTraceSpans({ traceId: OTHER_TRACE, cursor: trace.meta.nextCursor as string }),
          "invalid_argument",
        ),
      ).to.match(/other filters/);
    });
  });

  describe("not found", () => {
    it("refuses unknown traces and spans with not_found", () => {
      const { service } = setup();
      expect(refusal(() => service.getTrace({ traceId: TRACE }), "not_found")).to.equal(
        `no trace ${TRACE} in the store`,
      );
      expect(refusal(() => service.getTraceSpans({ traceId: TRACE }), "not_found")).to.equal(
        `no trace ${TRACE} in the store`,
      );
      expect(refusal(() => service.getSpan({ spanId: "9".repeat(16) }), "not_found")).to.equal(
        `no span ${"9".repeat(16)} in the store`,
      );
    });

    it("answers an unknown trace's or span's logs with an empty page (logs may come before their spans)", () => {
      const { service } = setup();
      expect(service.traceLogs({ traceId: TRACE }).data).to.deep.equal([]);
      expect(service.spanLogs({ spanId: "9".repeat(16) }).data).to.deep.equal([]);
    });

    it("gives a span its trace and its parent, and flags a parent that is not stored", () => {
      const { reader, service } = setup();
      const root = span(TRACE, "1".repeat(16), NOW);
      const child = span(TRACE, "2".repeat(16), NOW + MS, root.spanId);
      const orphan = span(TRACE, "3".repeat(16), NOW + 2n * MS, "9".repeat(16));
      reader.spans_ = [root, child, orphan, span(OTHER_TRACE, root.spanId, NOW)];
      const answer = service.getSpan({ spanId: child.spanId }).data;
      expect(answer.parent).to.equal(root);
      expect(answer.trace).to.deep.equal({ traceId: TRACE, spanCount: 3 });
      expect(answer.missingParent).to.equal(false);
      expect(reader.last("trace")[1]).to.deep.equal({ limit: 0 });
      expect(service.getSpan({ spanId: orphan.spanId }).data).to.deep.include({ parent: null, missingParent: true });
    });
  });

  describe("include=", () => {
    function withTrace() {
      const context = setup();
      const root = span(TRACE, "1".repeat(16), NOW);
      context.reader.spans_ = [root, span(TRACE, "2".repeat(16), NOW + MS, root.spanId)];
      context.reader.logs_ = [log("l1", NOW, TRACE, root.spanId)];
      return context;
    }

    it("answers the summary and tree alone by default", () => {
      const { service } = withTrace();
      const { data } = service.getTrace({ traceId: TRACE });
      expect(Object.keys(data).sort()).to.deep.equal(["spanCount", "traceId", "tree"]);
      expect(data.tree.map((node) => [node.spanId.slice(0, 1), node.depth])).to.deep.equal([
        ["1", 0],
        ["2", 1],
      ]);
      expect(data.tree[0]).to.not.have.property("attributes");
    });

    it("adds spans, logs (all time) and tree attributes when asked", () => {
      const { reader, service } = withTrace();
      const { data } = service.getTrace({ traceId: TRACE, include: ["spans", "logs", "attributes"] });
      expect(data.spans?.map((s) => s.spanId)).to.deep.equal(["1".repeat(16), "2".repeat(16)]);
      expect(data.logs?.map((l) => l.logId)).to.deep.equal(["l1"]);
      expect(data.logsTruncated).to.equal(false);
      expect((reader.last("logs")[0] as LogQuery).page).to.deep.equal({ fromNs: 0n, toNs: 2n ** 63n - 1n, limit: 500 });
      expect((data.tree as SpanTreeNodeWithAttributes[]).map((node) => node.attributes)).to.deep.equal([
        { n: "1".repeat(16) },
        { n: "2".repeat(16) },
      ]);
    });
  });

  describe("invalid arguments", () => {
    it("refuses a facet field of the other type, attribute values without a key, and a key for another field", () => {
      const { service } = setup();
      expect(refusal(() => service.facets({ type: "logs", field: "operation" }), "invalid_argument")).to.equal(
        'invalid field "operation" for type=logs: use one of service, severity, scope',
      );
      expect(refusal(() => service.facets({ type: "traces", field: "attribute_values" }), "invalid_argument")).to.equal(
        "field=attribute_values needs key=ATTRIBUTE",
      );
      // An attribute's key is never empty (OTLP), and obs facets refuses --key "" alike.
      expect(
        refusal(() => service.facets({ type: "traces", field: "attribute_values", key: "" }), "invalid_argument"),
      ).to.equal("parameter key is empty");
      // Ignored, the key would look like a filter that was applied: the counts are of every value.
      expect(
        refusal(() => service.facets({ type: "metrics", field: "name", key: "http.route" }), "invalid_argument"),
      ).to.equal("key applies to field=attribute_values only, not to field=name");
    });

    it("refuses a lookback over 24h, zero or negative, as the HTTP parser does", () => {
      const { reader, service } = setup();
      expect(refusal(() => service.listServices({ lookback: 48 * 3_600_000 }), "invalid_argument")).to.equal(
        "lookback 2d is over the maximum of 24h",
      );
      expect(refusal(() => service.searchLogs({ lookback: -5 }), "invalid_argument")).to.equal(
        'invalid lookback: invalid duration "-5ms": use an integer and a unit (ms, s, m, h, d, w), e.g. 15m, 2h, 1d',
      );
      expect(refusal(() => service.facets({ type: "logs", field: "scope", lookback: 0 }), "invalid_argument")).to.equal(
        'invalid lookback: invalid duration "0ms": must be greater than zero',
      );
      expect(reader.calls).to.deep.equal([]);
      expect(service.listServices({ lookback: 24 * 3_600_000 }).meta.lookback).to.equal("1d");
    });

    it("refuses zero, negative and fractional limits (a larger one is lowered to the cap)", () => {
      const { reader, service } = setup();
      expect(refusal(() => service.listTraces({ limit: 0 }), "invalid_argument")).to.equal(
        'invalid limit "0": expected a positive integer',
      );
      expect(refusal(() => service.facets({ type: "logs", field: "scope", limit: -3 }), "invalid_argument")).to.equal(
        'invalid limit "-3": expected a positive integer',
      );
      expect(refusal(() => service.getTrace({ traceId: TRACE, limit: 1.5 }), "invalid_argument")).to.equal(
        'invalid limit "1.5": expected a positive integer',
      );
      expect(reader.calls.map((c) => c.method)).to.deep.equal([]);
    });

    it("finds traces and spans by upper-case ids, as over HTTP", () => {
      const { reader, service } = setup();
      const root = span(TRACE, "ab".repeat(8), NOW);
      reader.spans_ = [root];
      expect(service.getSpan({ spanId: "AB".repeat(8) }).data.spanId).to.equal(root.spanId);
      expect(service.getTrace({ traceId: TRACE.toUpperCase() }).data.traceId).to.equal(TRACE);
      service.searchLogs({ spanId: "AB".repeat(8), traceId: TRACE.toUpperCase() });
      const query = reader.last("logs")[0] as LogQuery;
      expect([query.traceId, query.spanId]).to.deep.equal([TRACE, root.spanId]);
      expect(refusal(() => service.getSpan({ spanId: "xyz" }), "invalid_argument")).to.equal(
        'invalid span id "xyz": expected 16 hex characters',
      );
    });

    it("refuses fields the route does not take, by name and through call()", () => {
      const { service } = setup();
      const unknown = { lookback: 60_000, limit: 5 } as never;
      expect(refusal(() => service.call("listServices", unknown), "invalid_argument")).to.equal(
        "unknown parameter limit; this route accepts lookback",
      );
      expect(
        refusal(() => service.getSpan({ spanId: "1".repeat(16), attrs: [] } as never), "invalid_argument"),
      ).to.equal("unknown parameter attrs; this route accepts no parameters");
      expect(refusal(() => service.traceStats({ agg: "count" } as never), "invalid_argument")).to.equal(
        "parameter groupBy is required: service, operation, status or attr.KEY",
      );
      expect(refusal(() => service.listTraces({ status: "bad" as never }), "invalid_argument")).to.equal(
        'invalid status "bad": use one of ok, error',
      );
    });

    it("runs a method by name, and refuses a name that is not a query", () => {
      const { service } = setup();
      expect(service.call("listServices", {}).data).to.have.length(1);
      expect(refusal(() => service.call("constructor" as never, {} as never), "invalid_argument")).to.equal(
        "no query method constructor",
      );
    });
  });
});

import { expect } from "chai";
import { QueryError } from "../../../shared/query-error.js";
import { matchQueryPath, parseQueryRequest } from "../../../shared/query-request.js";
import { QUERY_ROUTES } from "../../../shared/query-routes.js";

const TRACE = "AB".repeat(16);
const SPAN = "cd".repeat(8);

function refusal(run: () => unknown): string {
  try {
    run();
  } catch (error) {
    expect(error).to.be.instanceOf(QueryError);
    expect((error as QueryError).code).to.equal("invalid_argument");
    return (error as Error).message;
  }
  throw new Error("expected a refusal");
}

describe("route table: matching paths", () => {
  it("names the method and the path values", () => {
    expect(matchQueryPath("/api/traces")).to.deep.equal({ method: "listTraces", path: {} });
    expect(matchQueryPath("/api/traces/search")).to.deep.equal({ method: "listTraces", path: {} });
    expect(matchQueryPath("/api/logs/search")).to.deep.equal({ method: "searchLogs", path: {} });
    expect(matchQueryPath(`/api/traces/${TRACE}/spans`)).to.deep.equal({
      method: "getTraceSpans",
      path: { traceId: TRACE },
    });
    expect(matchQueryPath(`/api/spans/${SPAN}/logs`)).to.deep.equal({ method: "spanLogs", path: { spanId: SPAN } });
  });

  it("prefers a fixed path over a pattern that also matches it", () => {
    expect(matchQueryPath("/api/traces/stats")?.method).to.equal("traceStats");
    expect(matchQueryPath("/api/spans/search")?.method).to.equal("searchSpans");
    expect(matchQueryPath("/api/traces/nothex")).to.deep.equal({ method: "getTrace", path: { traceId: "nothex" } });
  });

  it("answers null for paths no query route has", () => {
    expect(matchQueryPath("/api/health")).to.equal(null);
    expect(matchQueryPath("/api/traces/")).to.equal(null);
    expect(matchQueryPath("/api/nope")).to.equal(null);
  });
});

describe("route table: parsing requests", () => {
  it("parses every kind into its typed value", () => {
    expect(
      parseQueryRequest("listTraces", {}, { service: "shop", durationMin: "2.5", lookback: "2h", "attr.k": "v" }),
    ).to.deep.equal({ service: "shop", durationMin: 2.5, lookback: 7_200_000, attrs: [["k", "v"]] });
    expect(parseQueryRequest("getTrace", { traceId: TRACE }, { include: "spans, logs", limit: "3" })).to.deep.equal({
      traceId: TRACE.toLowerCase(),
      include: ["spans", "logs"],
      limit: 3,
    });
    expect(parseQueryRequest("audit", {}, { lookbackMinutes: "1.5", until: "2026-11-22T10:00:00Z" })).to.deep.equal({
      lookbackMinutes: 90_000,
      until: 1_795_341_600_000_000_000n,
    });
    expect(parseQueryRequest("traceStats", {}, { groupBy: "attr.http.route", agg: "count" })).to.deep.equal({
      groupBy: { attr: "http.route" },
      agg: "count",
      attrs: [],
    });
    expect(parseQueryRequest("searchLogs", {}, { "attrContains.db": "SEL" })).to.deep.equal({
      attrs: [],
      attrContains: [["db", "SEL"]],
    });
  });

  it("names an unknown parameter and lists what the route accepts, in the table's order", () => {
    expect(refusal(() => parseQueryRequest("listTraces", {}, { servce: "x" }))).to.equal(
      "unknown parameter servce; this route accepts service, status, operation, durationMin, lookback, limit, cursor, attr.KEY",
    );
    expect(refusal(() => parseQueryRequest("getSpan", { spanId: SPAN }, { limit: "1" }))).to.equal(
      "unknown parameter limit; this route accepts no parameters",
    );
    expect(refusal(() => parseQueryRequest("listTraces", {}, { "attrContains.k": "x" }))).to.match(
      /^unknown parameter attrContains\.k;/,
    );
  });

  it("refuses repeated, empty and malformed parameters with today's messages", () => {
    expect(refusal(() => parseQueryRequest("listTraces", {}, { status: ["ok", "error"] }))).to.equal(
      "parameter status is given more than once; give it once",
    );
    expect(refusal(() => parseQueryRequest("listTraces", {}, { service: "" }))).to.equal("parameter service is empty");
    expect(refusal(() => parseQueryRequest("listTraces", {}, { status: "failed" }))).to.equal(
      'invalid status "failed": use one of ok, error',
    );
    expect(refusal(() => parseQueryRequest("listTraces", {}, { lookback: "2d" }))).to.equal(
      "lookback 2d is over the maximum of 24h",
    );
    expect(refusal(() => parseQueryRequest("listTraces", {}, { limit: "0" }))).to.equal(
      'invalid limit "0": expected a positive integer',
    );
    expect(refusal(() => parseQueryRequest("getTrace", { traceId: TRACE }, { include: "spans,tree" }))).to.equal(
      'invalid include "tree": use a comma-separated list of logs, spans, attributes',
    );
    expect(refusal(() => parseQueryRequest("logStats", {}, { groupBy: "level" }))).to.equal(
      'invalid groupBy "level": use one of service, severity, scope or attr.KEY',
    );
  });

  it("checks path ids before the query string", () => {
    expect(refusal(() => parseQueryRequest("getTrace", { traceId: "xyz" }, { bogus: "1" }))).to.equal(
      'invalid trace id "xyz": expected 32 hex characters',
    );
    expect(refusal(() => parseQueryRequest("spanLogs", { spanId: TRACE }, {}))).to.equal(
      `invalid span id "${TRACE}": expected 16 hex characters`,
    );
  });

  it("checks required parameters after the others, in the table's order", () => {
    expect(refusal(() => parseQueryRequest("traceStats", {}, {}))).to.equal(
      "parameter groupBy is required: service, operation, status or attr.KEY",
    );
    expect(refusal(() => parseQueryRequest("traceStats", {}, { groupBy: "service" }))).to.equal(
      "parameter agg is required: count, avg_duration, p95_duration or error_rate",
    );
    expect(refusal(() => parseQueryRequest("traceStats", {}, { lookback: "x" }))).to.match(/^invalid lookback:/);
    expect(refusal(() => parseQueryRequest("facets", {}, {}))).to.equal(
      "parameter type is required: traces, logs or metrics",
    );
    expect(refusal(() => parseQueryRequest("facets", {}, { type: "logs" }))).to.equal(
      "parameter field is required: service, severity, scope",
    );
    // A text parameter has no values to list: its description says what it is.
    expect(refusal(() => parseQueryRequest("metricSeries", {}, {}))).to.equal(
      "parameter name is required: the metric's name, exactly.",
    );
  });

  it("describes a default and cap for every page size and lookback (the logs of one trace or span: a cap only)", () => {
    const unbounded = ["traceLogs", "spanLogs"];
    for (const [method, route] of Object.entries(QUERY_ROUTES)) {
      for (const [name, spec] of Object.entries(route.params)) {
        if (name === "limit" || (name === "lookback" && !unbounded.includes(method))) {
          expect(spec, `${method} ${name}`).to.include.keys("default", "cap");
        }
        if (name === "lookback" && unbounded.includes(method)) {
          expect(spec, `${method} ${name}`).to.include.keys("cap").and.not.to.have.property("default");
        }
      }
    }
  });
});

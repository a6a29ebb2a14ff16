import { expect } from "chai";
import { checkArgs } from "../../../shared/query-args.js";
import { QueryError } from "../../../shared/query-error.js";
import { parseQueryRequest } from "../../../shared/query-request.js";
import { QUERY_ROUTE_LIST } from "../../../shared/query-routes.js";
import type { QueryMethod } from "../../../shared/query-types.js";

function refusal(run: () => unknown): string {
  try {
    run();
  } catch (error) {
    expect(error).to.be.instanceOf(QueryError);
    expect((error as QueryError).code).to.equal("invalid_argument");
    return (error as Error).message;
  }
  throw new Error("expected a QueryError");
}

const ID16 = "A1".repeat(16);
const ID8 = "B2".repeat(8);
const PATH = { traceId: ID16, spanId: ID8 };

/** A query string and the typed arguments a direct caller would pass for the same request. */
/** Past the longest filter text a query takes. */
const LONG = "x".repeat(8193);
/** `n` attribute filters as typed pairs (`k0=v`, `k1=v`, ...), and pairs as a query string. */
const filters = (n: number) => Array.from({ length: n }, (_, i): [string, string] => [`k${i}`, "v"]);
const query = (prefix: string, pairs: [string, string][]) =>
  Object.fromEntries(pairs.map(([key, value]) => [`${prefix}.${key}`, value]));

const SAME_REQUEST: [QueryMethod, Record<string, string>, Record<string, unknown>][] = [
  ["searchLogs", { body: LONG }, { body: LONG }],
  ["searchLogs", { "attrContains.k": LONG }, { attrContains: [["k", LONG]] }],
  ["searchSpans", { "attr.k": LONG }, { attrs: [["k", LONG]] }],
  ["listMetrics", { name: LONG }, { name: LONG }],
  ["searchLogs", query("attrContains", filters(101)), { attrContains: filters(101) }],
  [
    "searchSpans",
    { ...query("attr", filters(60)), ...query("attrContains", filters(41)) },
    { attrs: filters(60), attrContains: filters(41) },
  ],
  ["listTraces", query("attr", filters(101)), { attrs: filters(101) }],
  ["searchLogs", { contains: "\0" }, { contains: "\0" }],
  ["searchLogs", { "attrContains.http.route": "/cart\0/x" }, { attrContains: [["http.route", "/cart\0/x"]] }],
  ["searchSpans", { "attr.a\0b": "1" }, { attrs: [["a\0b", "1"]] }],
  ["listMetrics", { name: "a\0" }, { name: "a\0" }],
  ["listServices", { lookback: "2d" }, { lookback: 2 * 86_400_000 }],
  ["listServices", { lookback: "0ms" }, { lookback: 0 }],
  ["listTraces", { limit: "0" }, { limit: 0 }],
  ["listTraces", { durationMin: "-1" }, { durationMin: -1 }],
  ["listTraces", { service: "" }, { service: "" }],
  ["traceStats", { groupBy: "attr.k" }, { groupBy: { attr: "k" } }],
  ["traceStats", { groupBy: "nope", agg: "count" }, { groupBy: "nope", agg: "count" }],
  ["traceStats", { groupBy: "service" }, { groupBy: "service" }],
  ["getTrace", { include: "spans,nope" }, { include: ["spans", "nope"] }],
  ["searchSpans", { traceId: "abc" }, { traceId: "abc" }],
  ["facets", { type: "logs" }, { type: "logs" }],
  ["facets", { type: "logs", field: "scope", limit: "-3" }, { type: "logs", field: "scope", limit: -3 }],
  ["audit", { lookbackMinutes: "1441" }, { lookbackMinutes: 1441 * 60_000 }],
  ["audit", { baselineMinutes: "0" }, { baselineMinutes: 0 }],
  ["audit", { nope: "1" }, { nope: 1 }],
];

describe("typed query arguments (checkArgs)", () => {
  it("refuses what the HTTP parser refuses, with the same message", () => {
    for (const [method, query, args] of SAME_REQUEST) {
      const overHttp = refusal(() => parseQueryRequest(method, PATH, query));
      const typed = refusal(() => checkArgs(method, { ...pathArgs(method), ...args } as never));
      expect(typed, `${method} ${JSON.stringify(query)}`).to.equal(overHttp);
    }
  });

  it("refuses a filter's text past 8192 characters, naming it (SQLite refuses LIKE patterns past 50,000 bytes)", () => {
    expect(refusal(() => checkArgs("searchLogs", { body: LONG }))).to.equal(
      "parameter body is 8193 characters long: a filter's text may hold at most 8192",
    );
    expect(refusal(() => checkArgs("searchLogs", { attrContains: [["k", LONG]] }))).to.equal(
      "parameter attrContains.k is 8193 characters long: a filter's text may hold at most 8192",
    );
    expect(checkArgs("searchLogs", { body: LONG.slice(1) })).to.deep.equal({ body: LONG.slice(1) });
  });

  it("refuses more than 100 attribute filters in all, naming the bound (past about 480, SQLite refused the query as too deep)", () => {
    const many = { attrs: filters(50), attrContains: filters(51) };
    expect(refusal(() => checkArgs("searchLogs", many))).to.equal(
      "101 attribute filters given (attr.KEY and attrContains.KEY): a query takes at most 100",
    );
    const most = { attrs: filters(50), attrContains: filters(50) };
    expect(checkArgs("searchLogs", most)).to.deep.equal(most);
    expect(
      parseQueryRequest(
        "searchLogs",
        {},
        { ...query("attr", most.attrs), ...query("attrContains", most.attrContains) },
      ),
    ).to.deep.equal(most);
    expect(refusal(() => checkArgs("metricSeries", { name: "m", attrs: filters(101) }))).to.match(/at most 100$/);
  });

  it("refuses U+0000 in any filter's text or attribute key, naming the parameter (SQLite's LIKE ends its pattern there)", () => {
    const refused = (method: QueryMethod, args: Record<string, unknown>) =>
      refusal(() => checkArgs(method, args as never));
    const cases: [QueryMethod, Record<string, unknown>, string][] = [
      ["searchLogs", { contains: "\0" }, "contains"],
      ["searchLogs", { body: "a\0b" }, "body"],
      ["searchLogs", { severity: "info\0zzz" }, "severity"],
      ["searchLogs", { service: "shop\0" }, "service"],
      ["searchLogs", { attrs: [["k", "\0"]] }, "attr.k"],
      ["searchLogs", { attrContains: [["http.route", "/cart\0/nothing"]] }, "attrContains.http.route"],
      ["searchLogs", { attrContains: [["a\0b", "x"]] }, "attrContains.a\0b"],
      ["searchSpans", { operation: "GET\0" }, "operation"],
      ["searchSpans", { parentOperation: "\0" }, "parentOperation"],
      ["listTraces", { operation: "\0GET" }, "operation"],
      ["listMetrics", { name: "a\0" }, "name"],
      ["metricSeries", { name: "a\0" }, "name"],
      ["facets", { type: "traces", field: "attribute_values", key: "k\0" }, "key"],
    ];
    for (const [method, args, name] of cases) {
      expect(refused(method, args), `${method} ${name}`).to.equal(
        `parameter ${name} holds U+0000 (NUL), which a filter's text may not hold`,
      );
    }
  });

  it("passes every request the HTTP parser builds, unchanged", () => {
    const samples: [QueryMethod, Record<string, string>][] = [
      ["listTraces", { service: "shop", status: "error", durationMin: "2.5", lookback: "24h", limit: "1000" }],
      ["traceStats", { groupBy: "attr.http.route", agg: "p95_duration", "attr.k": "v" }],
      ["getTrace", { include: "logs,spans,attributes", limit: "3" }],
      ["searchLogs", { traceId: ID16, spanId: ID8, "attrContains.k": "x", cursor: "c" }],
      ["audit", { lookbackMinutes: "0.5", baselineMinutes: "1440", until: "2262-04-11T23:47:16Z" }],
    ];
    for (const [method, query] of samples) {
      const parsed = parseQueryRequest(method, PATH, query);
      expect(checkArgs(method, parsed), method).to.deep.equal(parsed);
    }
  });

  it("lower-cases ids, and refuses values of the wrong type or range", () => {
    expect(checkArgs("getSpan", { spanId: ID8 })).to.deep.equal({ spanId: ID8.toLowerCase() });
    expect(checkArgs("searchLogs", { traceId: ID16 })).to.deep.equal({ traceId: ID16.toLowerCase() });
    expect(refusal(() => checkArgs("listServices", { lookback: "15m" } as never))).to.equal(
      'invalid lookback "15m": expected a number',
    );
    expect(refusal(() => checkArgs("audit", { until: -1n }))).to.equal(
      'invalid until "-1": expected a time from 1970-01-01T00:00:00Z to 2262-04-11T23:47:16.854775807Z',
    );
    expect(refusal(() => checkArgs("searchSpans", { attrs: [["", "v"]] }))).to.equal(
      'invalid attrs "[["","v"]]": expected a list of [key, value] pairs',
    );
  });

  it("refuses an unknown field on every route, naming what the route accepts as HTTP does", () => {
    for (const [method] of QUERY_ROUTE_LIST) {
      const overHttp = refusal(() => parseQueryRequest(method, PATH, { notAParameter: "1" }));
      expect(overHttp, method).to.match(/^unknown parameter notAParameter; this route accepts /);
      const typed = refusal(() => checkArgs(method, { ...pathArgs(method), notAParameter: 1 } as never));
      expect(typed, method).to.equal(overHttp);
    }
  });

  it("refuses a parameter named after an object's own machinery, as any other unknown one", () => {
    // Names every plain object inherits: read as a parameter's parser, they failed with 500 or
    // were ignored as if absent.
    for (const name of ["__proto__", "constructor", "toString", "valueOf", "hasOwnProperty", "isPrototypeOf"]) {
      for (const [method] of QUERY_ROUTE_LIST) {
        const query = JSON.parse(`{${JSON.stringify(name)}: "1"}`) as Record<string, string>;
        const overHttp = refusal(() => parseQueryRequest(method, PATH, query));
        expect(overHttp, `${method} ${name}`).to.match(new RegExp(`^unknown parameter ${name}; this route accepts `));
        const typed = refusal(() => checkArgs(method, { ...pathArgs(method), ...query } as never));
        expect(typed, `${method} ${name}`).to.equal(overHttp);
      }
    }
  });
});

/** The path ids a route needs, as typed arguments. */
function pathArgs(method: QueryMethod): Record<string, string> {
  const route = QUERY_ROUTE_LIST.find(([m]) => m === method)![1];
  return Object.fromEntries(Object.keys(route.pathParams).map((name) => [name, PATH[name as keyof typeof PATH]]));
}

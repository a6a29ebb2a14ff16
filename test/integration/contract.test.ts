import { Ajv } from "ajv";
import { expect } from "chai";
import type { QUERY_ROUTES } from "../../shared/query-routes.js";
import { type CollectorProcess, startCollectorProcess } from "../helpers/collector-process.js";
import { http, postJson } from "../helpers/http.js";
import { hexId, logsRequest, traceRequest } from "../helpers/otlp-builders.js";

const MS = 1_000_000n;

/** OpenAPI 3.0's `nullable` beside a `$ref`/`allOf` is not JSON Schema: rewrite it for ajv. */
function toJsonSchema(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(toJsonSchema);
  if (node === null || typeof node !== "object") return node;
  const copy: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(node)) copy[key] = toJsonSchema(value);
  if (copy.nullable === true && copy.type === undefined) {
    delete copy.nullable;
    return { anyOf: [copy, { type: "null" }] };
  }
  return copy;
}

const pointer = (...parts: string[]) => parts.map((p) => p.replace(/~/g, "~0").replace(/\//g, "~1")).join("/");

/** Which QUERY_ROUTES entry serves each described route. */
const ROUTES: Record<string, keyof typeof QUERY_ROUTES> = {
  "/api/services": "listServices",
  "/api/traces": "listTraces",
  "/api/traces/search": "listTraces",
  "/api/traces/stats": "traceStats",
  "/api/traces/{traceId}": "getTrace",
  "/api/traces/{traceId}/spans": "getTraceSpans",
  "/api/traces/{traceId}/logs": "traceLogs",
  "/api/spans/search": "searchSpans",
  "/api/spans/{spanId}": "getSpan",
  "/api/spans/{spanId}/logs": "spanLogs",
  "/api/logs": "searchLogs",
  "/api/logs/search": "searchLogs",
  "/api/logs/stats": "logStats",
  "/api/facets": "facets",
  "/api/audit": "audit",
  "/api/metrics": "listMetrics",
  "/api/metrics/series": "metricSeries",
  "/api/metrics/describe": "describeMetric",
};

describe("query API contract: real responses against the OpenAPI document", function () {
  this.timeout(30_000);
  let obsd: CollectorProcess;
  let document: any;
  let ajv: Ajv;
  const traceId = hexId(77, 16);
  const root = hexId(1, 8);
  const child = hexId(2, 8);
  const now = BigInt(Date.now()) * MS;

  before(async () => {
    obsd = await startCollectorProcess();
    const request = traceRequest("shop", [
      {
        traceId,
        spanId: root,
        name: "GET /cart",
        startNs: now - 50n * MS,
        durationNs: 20n * MS,
        attributes: { "http.route": "/cart", big: 2 ** 60 },
      },
      {
        traceId,
        spanId: child,
        parentSpanId: root,
        name: "SELECT",
        startNs: now - 45n * MS,
        error: true,
        attributes: { "db.system": "sqlite" },
      },
      { traceId, spanId: hexId(3, 8), parentSpanId: hexId(99, 8), name: "orphan", startNs: now - 40n * MS },
    ]);
    // An event and a link, so those shapes are exercised too.
    const span = request.resourceSpans[0]!.scopeSpans[0]!.spans[1] as Record<string, unknown>;
    span.events = [
      {
        timeUnixNano: String(now - 44n * MS),
        name: "exception",
        attributes: [{ key: "exception.type", value: { stringValue: "E" } }],
      },
    ];
    span.links = [{ traceId, spanId: root }];
    await postJson(`${obsd.url}/v1/traces`, request);
    await postJson(
      `${obsd.url}/v1/logs`,
      logsRequest("shop", [
        {
          timeNs: now - 44n * MS,
          body: "query failed",
          severityNumber: 17,
          traceId,
          spanId: child,
          attributes: { code: 7 },
        },
        { timeNs: now - 10n * MS, body: "idle", severityNumber: 9 },
        // Past the data model's 24, as some senders map their own levels: kept as sent.
        { timeNs: now - 12n * MS, body: "custom level", severityNumber: 30 },
      ]),
    );
    const point = (k: bigint) => ({
      attributes: [{ key: "route", value: { stringValue: "/cart" } }],
      startTimeUnixNano: String(now - 60_000n * MS),
      timeUnixNano: String(now - k * 1000n * MS),
      asInt: String(100 - Number(k)),
    });
    await postJson(`${obsd.url}/v1/metrics`, {
      resourceMetrics: [
        {
          resource: { attributes: [{ key: "service.name", value: { stringValue: "shop" } }] },
          scopeMetrics: [
            {
              scope: { name: "m" },
              metrics: [
                {
                  name: "shop.requests",
                  unit: "{request}",
                  sum: { aggregationTemporality: 2, isMonotonic: true, dataPoints: [point(20n), point(10n)] },
                },
              ],
            },
          ],
        },
      ],
    });
    document = (await http(`${obsd.url}/openapi.json`)).json();
    ajv = new Ajv({ strict: false, allErrors: true });
    ajv.addSchema(toJsonSchema(document) as object, "openapi.json");
  });
  after(async () => {
    await obsd.stop();
  });

  function validate(path: string, status: string, body: unknown): void {
    const validator = ajv.getSchema(
      `openapi.json#/${pointer("paths", path, "get", "responses", status, "content", "application/json", "schema")}`,
    );
    expect(validator, `${path} ${status} has a schema`).to.be.a("function");
    const valid = validator?.(body);
    expect(
      valid,
      `${path} ${status}: ${JSON.stringify(validator?.errors)}\n${JSON.stringify(body).slice(0, 400)}`,
    ).to.equal(true);
  }

  /** Representative requests per route: enough to return real data in every documented shape. */
  const samples: Record<string, string[]> = {
    "/api/services": [""],
    "/api/traces": ["", "?status=error&limit=1", "?attr.http.route=/cart"],
    "/api/traces/search": ["?service=shop"],
    "/api/traces/stats": [
      "?groupBy=service&agg=p95_duration",
      "?groupBy=attr.http.route&agg=error_rate",
      "?groupBy=status&agg=count",
    ],
    "/api/traces/{traceId}": ["", "?include=spans,logs,attributes"],
    "/api/traces/{traceId}/spans": [""],
    "/api/traces/{traceId}/logs": ["", "?limit=1"],
    "/api/spans/search": ["", "?status=error", "?attrContains.db.system=sql"],
    "/api/spans/{spanId}": [""],
    "/api/spans/{spanId}/logs": [""],
    "/api/logs": ["", "?severity=error&limit=1"],
    "/api/logs/search": ["?contains=failed"],
    "/api/logs/stats": ["?groupBy=severity", "?groupBy=attr.code"],
    "/api/facets": [
      "?type=traces&field=attribute_keys",
      "?type=logs&field=severity",
      "?type=traces&field=attribute_values&key=big",
      "?type=metrics&field=name",
      "?type=metrics&field=attribute_values&key=route",
    ],
    "/api/audit": ["", "?durationMin=0&lookbackMinutes=60", "?service=shop&baselineMinutes=30"],
    "/api/metrics": ["", "?name=shop&service=shop&limit=1"],
    "/api/metrics/series": [
      "?name=shop.requests",
      "?name=shop.requests&groupBy=service&groupBy=attr.route&agg=increase&step=1m",
    ],
    "/api/metrics/describe": ["?name=shop.requests"],
  };

  it("describes every query route, each with a sample here", () => {
    const described = Object.keys(document.paths).filter((p) => p.startsWith("/api/") && p !== "/api/health");
    expect(described.sort()).to.deep.equal(Object.keys(ROUTES).sort());
    expect(Object.keys(samples).sort()).to.deep.equal(Object.keys(ROUTES).sort());
  });

  /** A route's path with real ids in it. */
  const concrete = (path: string) => path.replace("{traceId}", traceId).replace("{spanId}", child);

  /** A value the documented schema allows, as query-string text. */
  function sampleValue(schema: { enum?: string[]; pattern?: string; type?: string; format?: string }): string {
    if (schema.enum) return schema.enum[0]!;
    const hex = /\{(\d+)\}/.exec(schema.pattern ?? "");
    if (schema.pattern?.includes("0-9a-fA-F") && hex) return "a".repeat(Number(hex[1]));
    if (schema.pattern?.includes("ms|s|m|h|d|w")) return "15m";
    if (schema.format === "date-time") return new Date().toISOString();
    if (schema.type === "integer" || schema.type === "number") return "1";
    return "x";
  }

  it("documents exactly the query parameters a real obsd accepts", async () => {
    for (const path of Object.keys(ROUTES)) {
      const documented: { name: string; schema: Record<string, never> }[] = document.paths[path].get.parameters.filter(
        (p: { in: string }) => p.in === "query",
      );
      // The daemon names what it accepts when it refuses an unknown parameter.
      const res = await http(`${obsd.url}${concrete(path)}?notAParameter=1`);
      expect(res.status, path).to.equal(400);
      const message: string = res.json().error;
      const listed = /^unknown parameter notAParameter; this route accepts (.*)$/.exec(message);
      expect(listed, `${path}: ${message}`).to.not.equal(null);
      const accepted = listed![1] === "no parameters" ? [] : listed![1]!.split(", ");
      expect(
        documented.map((p) => p.name),
        path,
      ).to.deep.equal(accepted);
      // And each documented parameter, given a value its schema allows, is not refused as unknown.
      for (const { name, schema } of documented) {
        const query = `${name.replace(/\.KEY$/, ".k")}=${encodeURIComponent(sampleValue(schema))}`;
        const answer = await http(`${obsd.url}${concrete(path)}?${query}`);
        const refused = answer.status === 400 ? String(answer.json().error) : "";
        expect(refused, `${path}?${query}`).to.not.match(/^unknown parameter/);
      }
    }
  });

  it("answers every route in its documented shape", async () => {
    for (const [path, queries] of Object.entries(samples)) {
      for (const query of queries) {
        const url = `${obsd.url}${concrete(path)}${query}`;
        const res = await http(url);
        expect(res.status, url).to.equal(200);
        const body = res.json();
        validate(path, "200", body);
        if (Array.isArray(body.data)) expect(body.data.length, `${url} returns data`).to.be.greaterThan(0);
        if (path === "/api/audit") expect(body.data.findings.length, `${url} finds something`).to.be.greaterThan(0);
      }
    }
  });

  it("rejects shapes the document does not allow (the check can fail)", () => {
    const validator = ajv.getSchema(
      `openapi.json#/${pointer("paths", "/api/traces", "get", "responses", "200", "content", "application/json", "schema")}`,
    )!;
    const good = { data: [], meta: { limit: 20, lookback: "15m", returned: 0, truncated: false, nextCursor: null } };
    expect(validator(good)).to.equal(true);
    expect(validator({ data: [] })).to.equal(false);
    expect(validator({ ...good, meta: { ...good.meta, extra: 1 } })).to.equal(false);
    expect(validator({ ...good, data: [{ traceId: "nothex" }] })).to.equal(false);
  });

  it("answers errors in the documented shape", async () => {
    const bad = await http(`${obsd.url}/api/traces?lookback=2d`);
    expect(bad.status).to.equal(400);
    validate("/api/traces", "400", bad.json());
    const missing = await http(`${obsd.url}/api/traces/${hexId(5, 16)}`);
    expect(missing.status).to.equal(404);
    validate("/api/traces/{traceId}", "404", missing.json());
  });

  it("answers an OTLP export of each signal in the documented shape, partial success included", async () => {
    const old = now - 30n * 86_400_000n * MS;
    const exports: [string, unknown][] = [
      ["/v1/traces", traceRequest("shop", [{ traceId: hexId(8, 16), spanId: hexId(8, 8), name: "old", startNs: old }])],
      ["/v1/logs", logsRequest("shop", [{ timeNs: old, body: "old" }])],
      [
        "/v1/metrics",
        {
          resourceMetrics: [
            {
              scopeMetrics: [
                {
                  metrics: [
                    {
                      name: "shop.old",
                      gauge: {
                        dataPoints: [
                          { timeUnixNano: String(old), asInt: "1" },
                          { timeUnixNano: String(now), asInt: "2" },
                        ],
                      },
                    },
                  ],
                },
              ],
            },
          ],
        },
      ],
    ];
    for (const [path, body] of exports) {
      const answer = (await postJson(`${obsd.url}${path}`, body)).json();
      expect(answer.partialSuccess, path).to.be.an("object");
      const validator = ajv.getSchema(
        `openapi.json#/${pointer("paths", path, "post", "responses", "200", "content", "application/json", "schema")}`,
      );
      expect(validator, `${path} has a schema`).to.be.a("function");
      expect(validator?.(answer), `${path}: ${JSON.stringify(validator?.errors)} ${JSON.stringify(answer)}`).to.equal(
        true,
      );
    }
  });
});

/**
 * What bench/query-answers.ts asks: every query route with representative parameters, the
 * error answers, and `obs` CLI commands (table and --json). Names are stable: they name the
 * answer files and the lines of answers.txt that two runs are compared by.
 */

/** Ids taken from the store before the cases are made (the same store gives the same ids). */
export interface KnownIds {
  /** The 200-span trace. */
  bigTraceId: string;
  /** Its root span and one of its children. */
  rootSpanId: string;
  childSpanId: string;
  /** A 5-span trace of the last 15 minutes, and its last span. */
  traceId: string;
  leafSpanId: string;
  /** A trace id carried by a log record (its trace is not stored). */
  logTraceId: string;
  /** The fixed clock's instant, ISO 8601. */
  nowIso: string;
  /** 45 minutes before it, for audit `until=`. */
  untilIso: string;
}

export type AnswerGroup = "answers" | "openapi";

export interface HttpCase {
  kind: "http";
  group: AnswerGroup;
  name: string;
  method: "GET" | "POST" | "PUT";
  path: string;
  /**
   * Follow `meta.nextCursor` for a second page: on this path (with `cursor=` added), or on
   * `path` itself when true.
   */
  follow?: true | string;
  /** The answer has fields that differ by nature between runs: they are masked. */
  mask?: "health";
}

export interface CliCase {
  kind: "cli";
  name: string;
  args: string[];
  /** Run again with `--cursor <page.next_cursor>` of the --json answer. */
  follow?: true;
  mask?: "status";
}

const UNKNOWN_TRACE = "0123456789abcdef0123456789abcdef";
const UNKNOWN_SPAN = "0123456789abcdef";

function get(name: string, path: string, follow?: true | string): HttpCase {
  return { kind: "http", group: "answers", name, method: "GET", path, ...(follow ? { follow } : {}) };
}

function serviceCases(): HttpCase[] {
  return [
    get("services", "/api/services"),
    get("services-lookback-24h", "/api/services?lookback=24h"),
    get("services-lookback-1m", "/api/services?lookback=1m"),
  ];
}

function traceListCases(): HttpCase[] {
  return [
    get("traces", "/api/traces", true),
    get("traces-search-alias", "/api/traces/search?lookback=1h", true),
    get("traces-service", "/api/traces?service=payments&lookback=24h", true),
    get("traces-status-error", "/api/traces?status=error&lookback=24h", true),
    get("traces-status-ok", "/api/traces?status=ok&lookback=1h"),
    get("traces-operation", "/api/traces?operation=GET%20%2Fapi%2Fv1%2Fr3&lookback=24h"),
    get("traces-duration-min", "/api/traces?durationMin=500&lookback=6h", true),
    get("traces-attr", "/api/traces?attr.cloud.region=eu-west&lookback=2h", true),
    get("traces-attr-two", "/api/traces?attr.http.route=%2Fapi%2Fv1%2Fr1&attr.user.id=user-17&lookback=24h"),
    get("traces-all-filters", "/api/traces?service=payments&status=error&durationMin=100&lookback=24h", true),
    get("traces-limit-5", "/api/traces?limit=5&lookback=24h", true),
    get("traces-limit-over-cap", "/api/traces?limit=1000&lookback=1h"),
    get("traces-lookback-1m-edge", "/api/traces?lookback=1m"),
  ];
}

function traceDetailCases(ids: KnownIds): HttpCase[] {
  const big = `/api/traces/${ids.bigTraceId}`;
  return [
    get("trace-big", big),
    get("trace-big-include-spans", `${big}?include=spans`),
    get("trace-big-include-logs", `${big}?include=logs`),
    get("trace-big-include-attributes", `${big}?include=attributes`),
    get("trace-big-include-all", `${big}?include=spans,logs,attributes`),
    get("trace-big-limit-50", `${big}?limit=50&include=spans`, `${big}/spans`),
    get("trace-big-uppercase-id", `/api/traces/${ids.bigTraceId.toUpperCase()}`),
    get("trace-small", `/api/traces/${ids.traceId}?include=spans,attributes`),
    get("trace-spans-big", `${big}/spans`),
    get("trace-spans-big-limit-30", `${big}/spans?limit=30`, true),
    get("trace-spans-small", `/api/traces/${ids.traceId}/spans`),
    get("trace-logs-small", `/api/traces/${ids.traceId}/logs`),
    get("trace-logs-correlated", `/api/traces/${ids.logTraceId}/logs`),
    get("trace-logs-correlated-limit-1", `/api/traces/${ids.logTraceId}/logs?limit=1`, true),
  ];
}

function spanCases(ids: KnownIds): HttpCase[] {
  return [
    get("spans", "/api/spans/search", true),
    get("spans-service", "/api/spans/search?service=inventory&lookback=1h", true),
    get("spans-trace-id", `/api/spans/search?traceId=${ids.bigTraceId}&lookback=2h`, true),
    get("spans-operation", "/api/spans/search?operation=step-2&lookback=1h"),
    get("spans-parent-operation", "/api/spans/search?parentOperation=step-1&lookback=30m"),
    get("spans-status-error", "/api/spans/search?status=error&lookback=24h", true),
    get("spans-status-ok", "/api/spans/search?status=ok&limit=10"),
    get("spans-attr", "/api/spans/search?attr.user.id=user-17&lookback=24h", true),
    // A key whose values do not repeat: its postings hashed in full buckets, pending in the open one.
    get("spans-attr-unique", "/api/spans/search?attr.request.id=req-1234-2&lookback=24h"),
    get("spans-attr-unique-recent", "/api/spans/search?attr.request.id=req-19990-1&lookback=24h"),
    get("traces-attr-unique", "/api/traces?attr.request.id=req-1234-2&lookback=24h"),
    get("spans-attr-contains", "/api/spans/search?attrContains.http.route=r1&lookback=30m"),
    get("spans-limit-3", "/api/spans/search?limit=3&lookback=24h", true),
    get("spans-limit-over-cap", "/api/spans/search?limit=5000&lookback=1h"),
    get("span-root", `/api/spans/${ids.rootSpanId}`),
    get("span-child", `/api/spans/${ids.childSpanId}`),
    get("span-leaf", `/api/spans/${ids.leafSpanId}`),
    get("span-logs-root", `/api/spans/${ids.rootSpanId}/logs`),
  ];
}

function logCases(ids: KnownIds): HttpCase[] {
  return [
    get("logs", "/api/logs", true),
    get("logs-search-alias", "/api/logs/search?lookback=5m", true),
    get("logs-service", "/api/logs?service=payments&lookback=1h", true),
    get("logs-severity-warn", "/api/logs?severity=warn&lookback=1h"),
    get("logs-severity-error-text", "/api/logs?severity=ERROR&lookback=30m"),
    get("logs-trace-id", `/api/logs?traceId=${ids.logTraceId}&lookback=24h`),
    get("logs-span-id", `/api/logs?spanId=${ids.rootSpanId}&lookback=24h`),
    get("logs-body", "/api/logs?body=timeout&lookback=6h", true),
    get("logs-contains", "/api/logs?contains=timeout&lookback=24h", true),
    get("logs-attr", "/api/logs?attr.log.logger=logger-3&lookback=1h", true),
    get("logs-attr-unique", "/api/logs?attr.request.id=req-4321&lookback=24h"),
    get("logs-attr-unique-recent", "/api/logs?attr.request.id=req-99990&lookback=24h"),
    get("logs-attr-contains", "/api/logs?attrContains.request.id=req-999&lookback=24h"),
    get("logs-limit-7", "/api/logs?limit=7&lookback=24h", true),
    get("logs-limit-over-cap", "/api/logs?limit=5000&lookback=15m"),
    get("logs-lookback-1m-edge", "/api/logs?lookback=1m"),
  ];
}

function statsCases(): HttpCase[] {
  const cases: HttpCase[] = [];
  for (const groupBy of ["service", "operation", "status", "attr.cloud.region"]) {
    for (const agg of ["count", "avg_duration", "p95_duration", "error_rate"]) {
      cases.push(get(`trace-stats-${groupBy}-${agg}`, `/api/traces/stats?groupBy=${groupBy}&agg=${agg}&lookback=24h`));
    }
  }
  cases.push(
    get("trace-stats-default-lookback", "/api/traces/stats?groupBy=service&agg=count"),
    get(
      "trace-stats-filtered",
      "/api/traces/stats?groupBy=operation&agg=p95_duration&service=payments&status=error&durationMin=50&attr.cloud.region=us-east&lookback=24h",
    ),
  );
  for (const groupBy of ["service", "severity", "scope", "attr.log.logger"]) {
    cases.push(get(`log-stats-${groupBy}`, `/api/logs/stats?groupBy=${groupBy}&agg=count&lookback=24h`));
  }
  cases.push(
    get("log-stats-no-agg", "/api/logs/stats?groupBy=severity"),
    get("log-stats-filtered", "/api/logs/stats?groupBy=service&severity=error&contains=timeout&lookback=24h"),
  );
  return cases;
}

function facetCases(): HttpCase[] {
  const cases: HttpCase[] = [];
  for (const field of ["service", "operation", "status", "attribute_keys"]) {
    cases.push(get(`facets-traces-${field}`, `/api/facets?type=traces&field=${field}&lookback=24h`));
  }
  cases.push(
    get(
      "facets-traces-attribute_values",
      "/api/facets?type=traces&field=attribute_values&key=cloud.region&lookback=24h",
    ),
    get("facets-traces-operation-service", "/api/facets?type=traces&field=operation&service=payments"),
    get("facets-traces-attribute_values-limit-2", "/api/facets?type=traces&field=attribute_values&key=user.id&limit=2"),
    get(
      "facets-traces-attribute_values-unique",
      "/api/facets?type=traces&field=attribute_values&key=request.id&limit=5&lookback=24h",
    ),
  );
  for (const field of ["service", "severity", "scope"]) {
    cases.push(get(`facets-logs-${field}`, `/api/facets?type=logs&field=${field}&lookback=24h`));
  }
  cases.push(get("facets-logs-severity-service", "/api/facets?type=logs&field=severity&service=email"));
  return cases;
}

/** Metrics (bench/answer-metrics.ts): the list, describe, every agg family's series, facets. */
function metricCases(): HttpCase[] {
  const counter = "http.server.request.count";
  const series = (name: string, query: string) => get(`metric-series-${name}`, `/api/metrics/series?${query}`);
  return [
    get("metrics", "/api/metrics?lookback=24h"),
    get("metrics-limit-2", "/api/metrics?lookback=24h&limit=2", true),
    get("metrics-service", "/api/metrics?service=payments&lookback=1h"),
    get("metrics-name", "/api/metrics?name=request&lookback=15m"),
    get("metric-describe", `/api/metrics/describe?name=${counter}&lookback=24h`),
    get("metric-describe-service", `/api/metrics/describe?name=${counter}&service=checkout&lookback=1h`),
    series("counter-24h", `name=${counter}&lookback=24h`),
    series("counter-rate-service-24h", `name=${counter}&agg=rate&groupBy=service&lookback=24h`),
    series("counter-increase-route-1h", `name=${counter}&agg=increase&groupBy=attr.http.route&lookback=1h`),
    series(
      "counter-increase-6h-filtered",
      `name=${counter}&agg=increase&step=10m&lookback=6h&groupBy=service&attr.http.route=%2Fapi%2Fv1%2Fr1`,
    ),
    // Across the restart of checkout's counters, twelve hours before the dataset's end.
    series("counter-reset", `name=${counter}&agg=increase&step=5m&lookback=13h&service=checkout`),
    series("counter-sum-raw", `name=${counter}&agg=sum&step=30s&lookback=15m&groupBy=service`),
    series("gauge-last", "name=process.memory.usage&groupBy=service&lookback=24h"),
    series("gauge-max-1h", "name=process.memory.usage&agg=max&step=10m&lookback=1h"),
    series("gauge-avg-raw", "name=process.memory.usage&agg=avg&step=2m&lookback=30m&service=users"),
    series("histogram-p95-service-24h", "name=http.server.request.duration&agg=p95&groupBy=service&lookback=24h"),
    series("histogram-p50-route-1h", "name=http.server.request.duration&agg=p50&groupBy=attr.http.route&lookback=1h"),
    series("histogram-count-6h", "name=http.server.request.duration&agg=count&step=30m&lookback=6h"),
    series("histogram-avg-raw", "name=http.server.request.duration&agg=avg&step=1m&lookback=10m"),
    series("summary-p99", "name=rpc.server.latency&agg=p99&groupBy=service&lookback=6h"),
    get("facets-metrics-name", "/api/facets?type=metrics&field=name&lookback=24h"),
    get("facets-metrics-service", "/api/facets?type=metrics&field=service&lookback=1h"),
    get("facets-metrics-attribute_keys", "/api/facets?type=metrics&field=attribute_keys&lookback=24h"),
    get(
      "facets-metrics-attribute_values",
      "/api/facets?type=metrics&field=attribute_values&key=http.route&lookback=24h",
    ),
    get("error-metric-unknown", "/api/metrics/series?name=no.such.metric&lookback=1h"),
    get("error-metric-agg", "/api/metrics/series?name=process.memory.usage&agg=rate"),
  ];
}

function auditCases(ids: KnownIds): HttpCase[] {
  const until = encodeURIComponent(ids.untilIso);
  return [
    get("audit", "/api/audit"),
    get("audit-until", `/api/audit?until=${until}`),
    get("audit-until-windows", `/api/audit?until=${until}&lookbackMinutes=60&baselineMinutes=120`),
    get("audit-service", `/api/audit?service=payments&lookbackMinutes=120&until=${until}`),
    get("audit-duration-min", `/api/audit?durationMin=300&lookbackMinutes=60`),
  ];
}

function errorCases(ids: KnownIds): HttpCase[] {
  const method = (name: string, m: "POST" | "PUT", path: string): HttpCase => ({
    kind: "http",
    group: "answers",
    name,
    method: m,
    path,
  });
  return [
    get("error-unknown-parameter", "/api/traces?foo=1"),
    get("error-repeated-parameter", "/api/traces?service=a&service=b"),
    get("error-malformed-trace-id", "/api/traces/xyz"),
    get("error-long-trace-id", `/api/traces/${ids.bigTraceId}0`),
    get("error-malformed-span-id", "/api/spans/xyz"),
    get("error-malformed-trace-id-param", "/api/logs?traceId=zz"),
    get("error-malformed-lookback", "/api/traces?lookback=abc"),
    get("error-lookback-too-long", "/api/logs?lookback=48h"),
    get("error-limit-zero", "/api/spans/search?limit=0"),
    get("error-limit-text", "/api/logs?limit=abc"),
    get("error-duration-min-negative", "/api/traces?durationMin=-5"),
    get("error-status-value", "/api/traces?status=bogus"),
    get("error-cursor-malformed", "/api/traces?cursor=abc"),
    get("error-include-value", `/api/traces/${ids.bigTraceId}?include=bogus`),
    get("error-stats-no-group-by", "/api/traces/stats?agg=count"),
    get("error-stats-group-by", "/api/traces/stats?groupBy=bogus&agg=count"),
    get("error-stats-agg", "/api/traces/stats?groupBy=service&agg=bogus"),
    get("error-log-stats-agg", "/api/logs/stats?groupBy=service&agg=p95_duration"),
    get("error-facets-no-type", "/api/facets?field=service"),
    get("error-facets-field-for-type", "/api/facets?type=logs&field=operation"),
    get("error-facets-values-no-key", "/api/facets?type=traces&field=attribute_values"),
    get("error-audit-until", "/api/audit?until=yesterday"),
    get("error-audit-minutes", "/api/audit?lookbackMinutes=2000"),
    get("error-span-with-parameter", `/api/spans/${ids.rootSpanId}?limit=1`),
    get("error-unknown-trace", `/api/traces/${UNKNOWN_TRACE}`),
    get("error-unknown-trace-spans", `/api/traces/${UNKNOWN_TRACE}/spans`),
    get("error-unknown-span", `/api/spans/${UNKNOWN_SPAN}`),
    get("error-unknown-span-logs", `/api/spans/${UNKNOWN_SPAN}/logs`),
    method("error-post-query-route", "POST", "/api/traces"),
    method("error-put-query-route", "PUT", `/api/traces/${ids.bigTraceId}`),
    method("error-post-health", "POST", "/api/health"),
    get("error-unknown-api-route", "/api/nope"),
    get("error-unknown-trace-subroute", `/api/traces/${ids.bigTraceId}/nope`),
    get("error-unknown-route", "/nope"),
  ];
}

/** Every HTTP request, in the order they are made. */
export function httpCases(ids: KnownIds): HttpCase[] {
  return [
    ...serviceCases(),
    ...traceListCases(),
    ...traceDetailCases(ids),
    ...spanCases(ids),
    ...logCases(ids),
    ...statsCases(),
    ...facetCases(),
    ...metricCases(),
    ...auditCases(ids),
    ...errorCases(ids),
    // Health: pid, uptime, start time, port, paths and file size differ between runs; masked.
    { kind: "http", group: "answers", name: "health-masked", method: "GET", path: "/api/health", mask: "health" },
    // The API's description: reported, allowed to change (a refactor may reword or reorder it).
    { kind: "http", group: "openapi", name: "openapi-json", method: "GET", path: "/openapi.json" },
    { kind: "http", group: "openapi", name: "docs-page", method: "GET", path: "/docs" },
  ];
}

/** `obs` commands; each is run as a table and with --json. */
export function cliCases(ids: KnownIds): CliCase[] {
  const cli = (name: string, args: string[], extra: Partial<CliCase> = {}): CliCase => ({
    kind: "cli",
    name,
    args,
    ...extra,
  });
  return [
    cli("services", ["services"]),
    cli("services-24h", ["services", "--since", "24h"]),
    cli("traces", ["traces"], { follow: true }),
    cli("traces-filtered", ["traces", "--since", "24h", "--service", "payments", "--status", "error"]),
    cli("traces-attr", ["traces", "attr.cloud.region=eu-west", "--since", "2h", "--duration-min", "100"]),
    cli("traces-limit-5", ["traces", "--since", "24h", "--limit", "5"], { follow: true }),
    cli("trace-big", ["trace", ids.bigTraceId]),
    cli("trace-big-include", ["trace", ids.bigTraceId, "--include", "spans,logs,attributes"]),
    cli("trace-small", ["trace", ids.traceId]),
    cli("spans-attr", ["spans", "attr.user.id=user-17", "--since", "24h"]),
    cli("spans-trace-limit-5", ["spans", "--trace-id", ids.bigTraceId, "--since", "2h", "--limit", "5"], {
      follow: true,
    }),
    cli("spans-operation", ["spans", "--operation", "step-2", "--parent-operation", "step-1", "--since", "1h"]),
    cli("spans-contains", ["spans", "attrContains.http.route=r1", "--status", "ok", "--service", "users"]),
    cli("span-root", ["span", ids.rootSpanId]),
    cli("span-leaf", ["span", ids.leafSpanId]),
    cli("logs", ["logs"]),
    cli("logs-contains", ["logs", "--since", "1h", "--contains", "timeout"]),
    cli("logs-filtered", ["logs", "--severity", "error", "--service", "payments", "--since", "24h", "--limit", "5"], {
      follow: true,
    }),
    cli("logs-attr", ["logs", "attr.log.logger=logger-3", "--since", "30m"]),
    cli("logs-trace-id", ["logs", "--trace-id", ids.logTraceId, "--since", "24h"]),
    cli("trace-logs", ["trace-logs", ids.logTraceId]),
    cli("span-logs", ["span-logs", ids.rootSpanId]),
    cli("trace-stats-p95", ["trace-stats", "service", "p95_duration", "--since", "24h"]),
    cli("trace-stats-error-rate", ["trace-stats", "status", "error_rate"]),
    cli("trace-stats-attr", ["trace-stats", "attr.cloud.region", "count", "--since", "24h", "--service", "payments"]),
    cli("log-stats-severity", ["log-stats", "severity", "--since", "24h"]),
    cli("log-stats-service", ["log-stats", "service", "--severity", "warn"]),
    cli("facets-traces-service", ["facets", "traces", "service", "--since", "24h"]),
    cli("facets-traces-values", ["facets", "traces", "attribute_values", "--key", "cloud.region", "--since", "24h"]),
    cli("facets-logs-severity", ["facets", "logs", "severity", "--since", "24h", "--limit", "3"]),
    cli("metrics", ["metrics", "--since", "24h"]),
    cli("metric-counter", ["metric", "http.server.request.count", "--group-by", "service", "--since", "24h"]),
    cli("metric-histogram", [
      "metric",
      "http.server.request.duration",
      "--group-by",
      "attr.http.route",
      "--agg",
      "p95",
      "--step",
      "10m",
      "--since",
      "2h",
    ]),
    cli("metric-gauge-filtered", [
      "metric",
      "process.memory.usage",
      "--agg",
      "max",
      "--since",
      "1h",
      "--service",
      "users",
    ]),
    cli("metric-describe", ["metric", "http.server.request.count", "--describe"]),
    cli("audit", ["audit"]),
    cli("audit-until", ["audit", "--until", ids.untilIso, "--since", "1h", "--baseline", "2h"]),
    cli("audit-fail-on", ["audit", "--until", ids.untilIso, "--fail-on", "error"]),
    cli("status-masked", ["status"], { mask: "status" }),
    cli("error-unknown-trace", ["trace", UNKNOWN_TRACE]),
    cli("error-malformed-trace-id", ["trace", "xyz"]),
    cli("error-since", ["traces", "--since", "bogus"]),
    cli("error-unknown-span", ["span", UNKNOWN_SPAN]),
    cli("error-facets-field", ["facets", "logs", "operation"]),
  ];
}

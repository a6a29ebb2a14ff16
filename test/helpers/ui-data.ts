/**
 * A known data set for the web UI's end-to-end tests, sent to a real obsd over OTLP/HTTP as an
 * SDK would: three services (web calls checkout, checkout calls payments and its database),
 * traces every 20 s over the last few minutes, two of them failing in payments with an
 * exception event; a trace whose handler runs the same query 50 times (the repeated-siblings
 * case); logs correlated to spans, one with a structured body; and a gauge and a counter.
 * Returns what it wrote, so tests compute their expectations from it.
 */
import { postJson } from "./http.js";
import { attributeList, hexId } from "./otlp-builders.js";

const MS = 1_000_000n;

type AttributeValue = string | number | boolean;

const attributes = attributeList;

export interface UiSpan {
  service: string;
  traceId: string;
  spanId: string;
  parentSpanId: string | null;
  name: string;
  startNs: bigint;
  endNs: bigint;
  error: boolean;
  attributes: Record<string, AttributeValue>;
  /** An exception event (type, message, stack) on failing spans. */
  exception?: { type: string; message: string; stacktrace: string };
}

export interface UiLog {
  service: string;
  timeNs: bigint;
  severityNumber: number;
  severityText: string;
  /** A string, or a key/value map (rendered as JSON-like text). */
  body: string | Record<string, AttributeValue>;
  traceId?: string;
  spanId?: string;
}

export interface UiData {
  spans: UiSpan[];
  logs: UiLog[];
  /** Checkout traces, oldest first. */
  traceIds: string[];
  /** The checkout traces that failed. */
  failedTraceIds: string[];
  /** The trace with 50 identical `SELECT orders` children under one handler span. */
  loopTraceId: string;
  services: string[];
  metrics: { gauge: string; counter: string };
}

export const CHECKOUT_TRACES = 12;
export const FAILED = new Set([3, 8]);
export const LOOP_QUERIES = 50;

let serial = 0;
function ids() {
  serial++;
  return { trace: hexId(0x5000 + serial, 16), span: (k: number) => hexId(0x60000 + serial * 100 + k, 8) };
}

/** The data set, placed so its newest trace starts `nowNs - 5 s`. */
export function uiData(nowNs: bigint): UiData {
  const spans: UiSpan[] = [];
  const logs: UiLog[] = [];
  const traceIds: string[] = [];
  const failedTraceIds: string[] = [];
  for (let i = 0; i < CHECKOUT_TRACES; i++) {
    const id = ids();
    const at = nowNs - 5000n * MS - BigInt(CHECKOUT_TRACES - 1 - i) * 20_000n * MS;
    const failed = FAILED.has(i);
    const [root, cart, charge, query1, query2] = [0, 1, 2, 3, 4].map(id.span) as string[];
    traceIds.push(id.trace);
    if (failed) failedTraceIds.push(id.trace);
    const base = { traceId: id.trace, attributes: {} as Record<string, AttributeValue>, error: false };
    spans.push(
      {
        ...base,
        service: "web",
        spanId: root!,
        parentSpanId: null,
        name: "GET /checkout",
        startNs: at,
        endNs: at + (120n + BigInt(i) * 10n) * MS,
        attributes: { "http.route": "/checkout", "http.response.status_code": failed ? 500 : 200 },
        error: failed,
      },
      {
        ...base,
        service: "checkout",
        spanId: cart!,
        parentSpanId: root!,
        name: "POST /cart",
        startNs: at + 5n * MS,
        endNs: at + (110n + BigInt(i) * 10n) * MS,
        attributes: { "cart.items": 3 },
      },
      {
        ...base,
        service: "checkout",
        spanId: query1!,
        parentSpanId: cart!,
        name: "SELECT cart",
        startNs: at + 8n * MS,
        endNs: at + 20n * MS,
        attributes: { "db.system": "sqlite", "db.statement": "SELECT * FROM cart WHERE id = ?" },
      },
      {
        ...base,
        service: "payments",
        spanId: charge!,
        parentSpanId: cart!,
        name: "charge",
        startNs: at + 25n * MS,
        endNs: at + (100n + BigInt(i) * 10n) * MS,
        attributes: { "payment.provider": "acme", "payment.amount": 42.5 },
        error: failed,
        ...(failed
          ? {
              exception: {
                type: "CardDeclined",
                message: "card declined by issuer",
                stacktrace:
                  "CardDeclined: card declined by issuer\n    at charge (payments.js:42:11)\n    at handle (server.js:7:3)",
              },
            }
          : {}),
      },
      {
        ...base,
        service: "checkout",
        spanId: query2!,
        parentSpanId: cart!,
        name: "UPDATE stock",
        startNs: at + (101n + BigInt(i) * 10n) * MS,
        endNs: at + (108n + BigInt(i) * 10n) * MS,
        attributes: { "db.system": "sqlite" },
      },
    );
    logs.push({
      service: "checkout",
      timeNs: at + 6n * MS,
      severityNumber: 9,
      severityText: "INFO",
      body: `cart ${i} has 3 items`,
      traceId: id.trace,
      spanId: cart!,
    });
    if (failed) {
      logs.push({
        service: "payments",
        timeNs: at + 90n * MS,
        severityNumber: 17,
        severityText: "ERROR",
        body: { event: "charge.failed", reason: "card declined", attempt: 1 },
        traceId: id.trace,
        spanId: charge!,
      });
    }
  }
  const loop = ids();
  const loopAt = nowNs - 30_000n * MS;
  spans.push({
    service: "web",
    traceId: loop.trace,
    spanId: loop.span(0),
    parentSpanId: null,
    name: "GET /orders",
    startNs: loopAt,
    endNs: loopAt + BigInt(LOOP_QUERIES * 2 + 4) * MS,
    error: false,
    attributes: { "http.route": "/orders" },
  });
  for (let k = 0; k < LOOP_QUERIES; k++) {
    const start = loopAt + BigInt(2 + k * 2) * MS;
    spans.push({
      service: "web",
      traceId: loop.trace,
      spanId: loop.span(k + 1),
      parentSpanId: loop.span(0),
      name: "SELECT orders",
      startNs: start,
      endNs: start + 1n * MS,
      error: false,
      attributes: { "db.system": "sqlite", "db.statement": "SELECT * FROM orders WHERE user = ?" },
    });
  }
  logs.push({
    service: "web",
    timeNs: nowNs - 60_000n * MS,
    severityNumber: 13,
    severityText: "WARN",
    body: "slow start: cache cold",
  });
  return {
    spans,
    logs,
    traceIds,
    failedTraceIds,
    loopTraceId: loop.trace,
    services: ["checkout", "payments", "web"],
    metrics: { gauge: "queue.depth", counter: "http.server.requests" },
  };
}

function traceBody(spans: readonly UiSpan[]) {
  const services = [...new Set(spans.map((span) => span.service))];
  return {
    resourceSpans: services.map((service) => ({
      resource: { attributes: attributes({ "service.name": service, "service.version": "1.4.2" }) },
      scopeSpans: [
        {
          scope: { name: `${service}-instrumentation`, version: "0.1.0" },
          spans: spans
            .filter((span) => span.service === service)
            .map((span) => ({
              traceId: span.traceId,
              spanId: span.spanId,
              ...(span.parentSpanId ? { parentSpanId: span.parentSpanId } : {}),
              name: span.name,
              kind: span.parentSpanId ? 3 : 2,
              startTimeUnixNano: span.startNs.toString(),
              endTimeUnixNano: span.endNs.toString(),
              attributes: attributes(span.attributes),
              status: span.error ? { code: 2, message: span.exception?.message ?? "failed" } : { code: 1 },
              events: span.exception
                ? [
                    {
                      name: "exception",
                      timeUnixNano: (span.endNs - 1n * MS).toString(),
                      attributes: attributes({
                        "exception.type": span.exception.type,
                        "exception.message": span.exception.message,
                        "exception.stacktrace": span.exception.stacktrace,
                      }),
                    },
                  ]
                : [],
            })),
        },
      ],
    })),
  };
}

function logBody(logs: readonly UiLog[]) {
  const services = [...new Set(logs.map((log) => log.service))];
  return {
    resourceLogs: services.map((service) => ({
      resource: { attributes: attributes({ "service.name": service }) },
      scopeLogs: [
        {
          scope: { name: `${service}-logger` },
          logRecords: logs
            .filter((log) => log.service === service)
            .map((log) => ({
              timeUnixNano: log.timeNs.toString(),
              severityNumber: log.severityNumber,
              severityText: log.severityText,
              body:
                typeof log.body === "string"
                  ? { stringValue: log.body }
                  : { kvlistValue: { values: attributes(log.body) } },
              ...(log.traceId ? { traceId: log.traceId } : {}),
              ...(log.spanId ? { spanId: log.spanId } : {}),
            })),
        },
      ],
    })),
  };
}

/** A gauge and a cumulative counter per service, a point every 10 s over the last 5 minutes. */
function metricBody(nowNs: bigint, services: readonly string[]) {
  const points = 30;
  const startNs = nowNs - BigInt(points) * 10_000n * MS;
  return {
    resourceMetrics: services.map((service, s) => ({
      resource: { attributes: attributes({ "service.name": service }) },
      scopeMetrics: [
        {
          scope: { name: `${service}-meter` },
          metrics: [
            {
              name: "queue.depth",
              unit: "{item}",
              description: "Items waiting in the queue",
              gauge: {
                dataPoints: Array.from({ length: points }, (_, k) => ({
                  timeUnixNano: (startNs + BigInt(k + 1) * 10_000n * MS).toString(),
                  asInt: String(10 + s * 5 + (k % 7)),
                  attributes: attributes({ queue: "orders" }),
                })),
              },
            },
            {
              name: "http.server.requests",
              unit: "{request}",
              description: "Requests served",
              sum: {
                aggregationTemporality: 2,
                isMonotonic: true,
                dataPoints: Array.from({ length: points }, (_, k) => ({
                  startTimeUnixNano: startNs.toString(),
                  timeUnixNano: (startNs + BigInt(k + 1) * 10_000n * MS).toString(),
                  asInt: String((k + 1) * (20 + s * 10)),
                  attributes: attributes({ "http.route": "/checkout" }),
                })),
              },
            },
          ],
        },
      ],
    })),
  };
}

/** Sends spans over OTLP/HTTP JSON; throws unless the collector accepts them all. */
export async function sendSpans(url: string, spans: readonly UiSpan[]): Promise<void> {
  const answer = await postJson(`${url}/v1/traces`, traceBody(spans));
  if (answer.status !== 200) throw new Error(`traces refused: ${answer.status} ${answer.body}`);
}

/** Sends log records over OTLP/HTTP JSON; throws unless the collector accepts them all. */
export async function sendLogs(url: string, logs: readonly UiLog[]): Promise<void> {
  const answer = await postJson(`${url}/v1/logs`, logBody(logs));
  if (answer.status !== 200) throw new Error(`logs refused: ${answer.status} ${answer.body}`);
}

/** Writes the whole data set to the collector at `url`. */
export async function sendUiData(url: string, nowNs: bigint = BigInt(Date.now()) * MS): Promise<UiData> {
  const data = uiData(nowNs);
  await sendSpans(url, data.spans);
  await sendLogs(url, data.logs);
  const answer = await postJson(`${url}/v1/metrics`, metricBody(nowNs, data.services));
  if (answer.status !== 200) throw new Error(`metrics refused: ${answer.status} ${answer.body}`);
  return data;
}

/**
 * A small known data set for the MCP query tools' tests: traces of two services (shop calls
 * billing; some payments fail), logs correlated to them, and one log with a long body. Returns
 * what it wrote, so tests compute their expectations from it.
 */

import { type StoreApi, storeApi } from "./mcp-tools.js";
import { hexId, type LogSpec, logsRequest, type SpanSpec, traceRequest } from "./otlp-builders.js";
import { type TestStore, testStore } from "./store.js";

const MS = 1_000_000n;

export interface WrittenSpan extends SpanSpec {
  service: string;
}

export interface WrittenLog extends LogSpec {
  service: string;
}

export interface QueryData {
  spans: WrittenSpan[];
  logs: WrittenLog[];
  /** Trace ids, oldest first. */
  traceIds: string[];
}

export const TRACES = 8;
/** Traces whose payment fails (error spans in billing, error logs). */
export const FAILING = new Set([2, 5]);
export const LONG_BODY = `stack dump ${"x".repeat(3000)}`;

/** Writes the data set, trace i starting at now - (TRACES - i) seconds. */
export function writeQueryData(store: TestStore, nowNs: bigint): QueryData {
  const spans: WrittenSpan[] = [];
  const logs: WrittenLog[] = [];
  const traceIds: string[] = [];
  for (let i = 0; i < TRACES; i++) {
    const traceId = hexId(100 + i, 16);
    const root = hexId(200 + i, 8);
    const query = hexId(300 + i, 8);
    const pay = hexId(400 + i, 8);
    const at = nowNs - BigInt(TRACES - i) * 1000n * MS;
    const failed = FAILING.has(i);
    traceIds.push(traceId);
    spans.push(
      {
        service: "shop",
        traceId,
        spanId: root,
        name: "GET /cart",
        startNs: at,
        durationNs: BigInt(50 + i * 10) * MS,
        attributes: { "http.route": "/cart", "http.status_code": failed ? 500 : 200 },
      },
      {
        service: "shop",
        traceId,
        spanId: query,
        parentSpanId: root,
        name: "db.query",
        startNs: at + MS,
        durationNs: BigInt(5 + i) * MS,
        attributes: { "db.statement": `SELECT * FROM cart WHERE id = ${i}`, "db.system": "sqlite" },
      },
      {
        service: "billing",
        traceId,
        spanId: pay,
        parentSpanId: root,
        name: "POST /pay",
        startNs: at + 10n * MS,
        durationNs: BigInt(20 + i) * MS,
        error: failed,
        statusMessage: `card declined ${i}`,
        attributes: { "payment.method": i % 2 ? "card" : "wallet" },
      },
    );
    logs.push({ service: "shop", timeNs: at + 2n * MS, body: `cart viewed ${i}`, traceId, spanId: root });
    if (failed) {
      logs.push({
        service: "billing",
        timeNs: at + 11n * MS,
        body: `payment failed: card declined ${i}`,
        severityNumber: 17,
        traceId,
        spanId: pay,
        attributes: { "payment.method": i % 2 ? "card" : "wallet" },
      });
    }
  }
  logs.push({ service: "shop", timeNs: nowNs - 500n * MS, body: LONG_BODY, severityNumber: 13 });
  for (const service of ["shop", "billing"]) {
    store.writeTraces(
      traceRequest(
        service,
        spans.filter((span) => span.service === service),
      ),
    );
    store.writeLogs(
      logsRequest(
        service,
        logs.filter((log) => log.service === service),
      ),
    );
  }
  return { spans, logs, traceIds };
}

/** Newest first, as the API lists spans and logs (by start or time, then id). */
export function newestFirst<T extends { startNs?: bigint; timeNs?: bigint }>(items: readonly T[]): T[] {
  const at = (item: T) => item.startNs ?? item.timeNs ?? 0n;
  return [...items].sort((a, b) => (at(a) === at(b) ? 0 : at(a) > at(b) ? -1 : 1));
}

/** What each test of a suite using useQueryData gets: a fresh store, its data and a QueryApi. */
export interface QueryDataFixture {
  store: TestStore;
  query: StoreApi;
  data: QueryData;
}

/**
 * Registers hooks that give each test of the calling suite a new store holding the query data
 * set written at `nowNs`, and a QueryApi over it whose windows end at `nowNs`; both are closed
 * after the test. Read the fields inside tests or later hooks (they are set before each test).
 */
export function useQueryData(nowNs: bigint): QueryDataFixture {
  const fixture = {} as QueryDataFixture;
  beforeEach(() => {
    fixture.store = testStore();
    fixture.data = writeQueryData(fixture.store, nowNs);
    fixture.query = storeApi(fixture.store.path);
    fixture.query.setNow(nowNs);
  });
  afterEach(() => {
    fixture.query.close();
    fixture.store.close();
  });
  return fixture;
}

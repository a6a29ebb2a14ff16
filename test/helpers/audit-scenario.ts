/**
 * A store for audit tests: steady traffic from four services over a baseline and a current
 * window of 15 minutes each, with any of the six anomalies planted on top. Deterministic:
 * the same `untilMs` and anomalies give the same requests.
 */
import { FINDING_CODES, type FindingCode } from "../../daemon/audit/audit-model.js";
import { hexId, type LogSpec, logsRequest, type SpanSpec, traceRequest } from "./otlp-builders.js";

export type Anomaly = FindingCode;

/** One anomaly per finding code: each plants what that code should find. */
export const ALL_ANOMALIES: Anomaly[] = [...FINDING_CODES];

const MS = 1_000_000n;
const WINDOW_MS = 15 * 60_000;
const TRACES_PER_WINDOW = 40;

export interface AuditScenario {
  traces: ReturnType<typeof traceRequest>[];
  logs: ReturnType<typeof logsRequest>[];
  /** Ids of what was planted, for assertions on evidence. */
  planted: {
    newSignatureTraceIds: string[];
    burstTraceIds: string[];
    orphanTraceIds: string[];
    orphanSpanIds: string[];
  };
}

export function auditScenario(untilMs: number, anomalies: Anomaly[]): AuditScenario {
  const plant = new Set(anomalies);
  let next = 1_000;
  const id = (bytes: number) => hexId(next++, bytes);
  const spans = new Map<string, SpanSpec[]>();
  const logs = new Map<string, LogSpec[]>();
  const addSpans = (service: string, ...list: SpanSpec[]) =>
    spans.set(service, [...(spans.get(service) ?? []), ...list]);
  const addLogs = (service: string, ...list: LogSpec[]) => logs.set(service, [...(logs.get(service) ?? []), ...list]);
  const planted: AuditScenario["planted"] = {
    newSignatureTraceIds: [],
    burstTraceIds: [],
    orphanTraceIds: [],
    orphanSpanIds: [],
  };

  for (const window of ["baseline", "current"] as const) {
    // Traffic ends 2 minutes before `until`, past the audit's grace period.
    const startMs = untilMs - (window === "current" ? WINDOW_MS : 2 * WINDOW_MS) + 1_000;
    const stepMs = (WINDOW_MS - 3 * 60_000) / TRACES_PER_WINDOW;
    const current = window === "current";
    for (let i = 0; i < TRACES_PER_WINDOW; i++) {
      const at = BigInt(Math.round(startMs + i * stepMs)) * MS;
      // shop: GET /cart -> db.query, one info log per trace.
      const shopTrace = id(16);
      const shopRoot = id(8);
      const slow = current && plant.has("latency_regression");
      const dbMs = slow ? 120 + (i % 7) : 10 + (i % 3);
      addSpans(
        "shop",
        { traceId: shopTrace, spanId: shopRoot, name: "GET /cart", startNs: at, durationNs: BigInt(dbMs + 20) * MS },
        {
          traceId: shopTrace,
          spanId: id(8),
          parentSpanId: shopRoot,
          name: "db.query",
          startNs: at + MS,
          durationNs: BigInt(dbMs) * MS,
        },
      );
      addLogs("shop", { timeNs: at, body: `cart viewed ${i}`, traceId: shopTrace, spanId: shopRoot });
      if (i % 20 === 0)
        addLogs("shop", { timeNs: at + MS, body: "slow cache", severityNumber: 13, traceId: shopTrace });
      if (current && plant.has("log_burst") && i < 5) {
        planted.burstTraceIds.push(shopTrace);
        for (let n = 0; n < 8; n++) {
          addLogs("shop", {
            timeNs: at + BigInt(n + 2) * MS,
            body: `retrying payment lookup, attempt ${n}`,
            severityNumber: n < 6 ? 13 : 17,
            traceId: shopTrace,
            spanId: shopRoot,
          });
        }
      }

      // billing: POST /pay -> charge; errors only when planted.
      const payTrace = id(16);
      const payRoot = id(8);
      const declined = plant.has("error_trace") && i % 4 === 0;
      const reset = current && plant.has("new_error_signature") && i % 10 === 5;
      if (reset) planted.newSignatureTraceIds.push(payTrace);
      addSpans(
        "billing",
        { traceId: payTrace, spanId: payRoot, name: "POST /pay", startNs: at, durationNs: 40n * MS },
        {
          traceId: payTrace,
          spanId: id(8),
          parentSpanId: payRoot,
          name: "charge",
          startNs: at + MS,
          durationNs: 15n * MS,
          error: declined || reset,
          statusMessage: reset ? `connection reset by peer 10.0.0.${i}:5432` : `card ${4000 + i} declined`,
        },
      );

      // inventory: complete traces; orphans only when planted.
      if (i % 4 === 0) {
        const invTrace = id(16);
        const invRoot = id(8);
        addSpans(
          "inventory",
          { traceId: invTrace, spanId: invRoot, name: "reserve", startNs: at, durationNs: 5n * MS },
          { traceId: invTrace, spanId: id(8), parentSpanId: invRoot, name: "lock", startNs: at, durationNs: 2n * MS },
        );
      }

      // mailer: steady, and silent in the current window when planted.
      if (i % 2 === 0 && !(current && plant.has("no_telemetry"))) {
        addSpans("mailer", { traceId: id(16), spanId: id(8), name: "send", startNs: at, durationNs: 3n * MS });
      }
    }
  }

  if (plant.has("incomplete_trace")) {
    const at = BigInt(untilMs - 10 * 60_000) * MS;
    for (let n = 0; n < 3; n++) {
      const traceId = id(16);
      const spanId = id(8);
      planted.orphanTraceIds.push(traceId);
      planted.orphanSpanIds.push(spanId);
      addSpans("inventory", {
        traceId,
        spanId,
        parentSpanId: id(8),
        name: "lock",
        startNs: at + BigInt(n) * MS,
        durationNs: 2n * MS,
      });
    }
  }

  return {
    traces: [...spans].map(([service, list]) => traceRequest(service, list)),
    logs: [...logs].map(([service, list]) => logsRequest(service, list)),
    planted,
  };
}

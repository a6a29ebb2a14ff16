/** Small builders of OTLP/JSON requests for tests and benchmarks. */

export interface SpanSpec {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name?: string;
  startNs: bigint;
  durationNs?: bigint;
  error?: boolean;
  /** Status message of an error span (default "failed"). */
  statusMessage?: string;
  attributes?: Record<string, string | number | boolean>;
  /** More OTLP/JSON span fields, as sent (traceState, events, links, dropped counts). */
  more?: Record<string, unknown>;
}

/** OTLP/JSON attributes: strings, booleans, whole numbers as intValue, others as doubleValue. */
export function attributeList(attributes: Record<string, string | number | boolean> = {}) {
  return Object.entries(attributes).map(([key, value]) => ({
    key,
    value:
      typeof value === "string"
        ? { stringValue: value }
        : typeof value === "boolean"
          ? { boolValue: value }
          : Number.isInteger(value)
            ? { intValue: String(value) }
            : { doubleValue: value },
  }));
}

export function traceRequest(service: string, spans: SpanSpec[]) {
  return {
    resourceSpans: [
      {
        resource: { attributes: attributeList({ "service.name": service }) },
        scopeSpans: [
          {
            scope: { name: "test" },
            spans: spans.map((s) => ({
              traceId: s.traceId,
              spanId: s.spanId,
              ...(s.parentSpanId ? { parentSpanId: s.parentSpanId } : {}),
              name: s.name ?? "op",
              kind: 2,
              startTimeUnixNano: s.startNs.toString(),
              endTimeUnixNano: (s.startNs + (s.durationNs ?? 1_000_000n)).toString(),
              attributes: attributeList(s.attributes),
              status: s.error ? { code: 2, message: s.statusMessage ?? "failed" } : {},
              ...s.more,
            })),
          },
        ],
      },
    ],
  };
}

export interface LogSpec {
  /** 0n: the record has no time of its own. */
  timeNs: bigint;
  observedNs?: bigint;
  body: string;
  severityNumber?: number;
  severityText?: string;
  traceId?: string;
  spanId?: string;
  attributes?: Record<string, string | number | boolean>;
}

export function logsRequest(service: string, logs: LogSpec[]) {
  return {
    resourceLogs: [
      {
        resource: { attributes: attributeList({ "service.name": service }) },
        scopeLogs: [
          {
            scope: { name: "test" },
            logRecords: logs.map((l) => ({
              timeUnixNano: l.timeNs.toString(),
              ...(l.observedNs === undefined ? {} : { observedTimeUnixNano: l.observedNs.toString() }),
              severityNumber: l.severityNumber ?? 9,
              ...(l.severityText === undefined ? {} : { severityText: l.severityText }),
              body: { stringValue: l.body },
              attributes: attributeList(l.attributes),
              ...(l.traceId ? { traceId: l.traceId } : {}),
              ...(l.spanId ? { spanId: l.spanId } : {}),
            })),
          },
        ],
      },
    ],
  };
}

/** Deterministic non-zero ids: `hexId(6, 16)` is the 16-byte id 0x...07. */
export function hexId(n: number, bytes: number): string {
  return (n + 1).toString(16).padStart(bytes * 2, "0");
}

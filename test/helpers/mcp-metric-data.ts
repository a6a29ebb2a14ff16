/**
 * Metrics for the MCP metric tools' tests, sent through the OTLP/JSON decoder: a gauge
 * `queue.depth` from `worker` (one series per queue) and a cumulative counter `tokens` from
 * `api` (input and output tokens; the output series restarts once; one input point carries an
 * exemplar). One point every 10 s over the 15 minutes before `nowNs`.
 */
import { decodeMetricRequest } from "../../daemon/otlp/decode-request.js";
import type { TestStore } from "./store.js";

const MS = 1_000_000n;
export const POINT_EVERY_MS = 10_000;
/** Points per series: every 10 s over 15 minutes. */
export const POINTS = 90;
export const QUEUES = 12;
/** Tokens per point of each counter series, and the output series' restart. */
export const INPUT_PER_POINT = 10;
export const OUTPUT_PER_POINT = 3;
export const OUTPUT_RESTART = 50;
export const EXEMPLAR_POINT = 80;
export const EXEMPLAR_TRACE = "5b8efff798038103d269b633813fc60c";

/** The gauge's value of queue `q` at point `k`. */
export function depth(q: number, k: number): number {
  return q * 1000 + k;
}

const text = (key: string, value: string) => ({ key, value: { stringValue: value } });

export function writeMetricData(store: TestStore, nowNs: bigint): void {
  const at = (k: number) => nowNs - 15n * 60_000n * MS + BigInt(k * POINT_EVERY_MS + 1000) * MS;
  const points = Array.from({ length: POINTS }, (_, k) => k);
  const gauge = {
    resourceMetrics: [
      {
        resource: { attributes: [text("service.name", "worker")] },
        scopeMetrics: [
          {
            scope: { name: "test" },
            metrics: [
              {
                name: "queue.depth",
                unit: "{item}",
                description: "Items waiting",
                gauge: {
                  dataPoints: Array.from({ length: QUEUES }, (_, q) =>
                    points.map((k) => ({
                      timeUnixNano: at(k).toString(),
                      asInt: String(depth(q, k)),
                      attributes: [text("queue", `q${String(q).padStart(2, "0")}`)],
                    })),
                  ).flat(),
                },
              },
            ],
          },
        ],
      },
    ],
  };
  const start = nowNs - 20n * 60_000n * MS;
  const restart = at(OUTPUT_RESTART) - MS;
  const counter = {
    resourceMetrics: [
      {
        resource: { attributes: [text("service.name", "api")] },
        scopeMetrics: [
          {
            scope: { name: "test" },
            metrics: [
              {
                name: "tokens",
                unit: "{token}",
                sum: {
                  aggregationTemporality: 2,
                  isMonotonic: true,
                  dataPoints: [
                    ...points.map((k) => ({
                      startTimeUnixNano: start.toString(),
                      timeUnixNano: at(k).toString(),
                      asInt: String(INPUT_PER_POINT * (k + 1)),
                      attributes: [text("gen_ai.token.type", "input")],
                      ...(k === EXEMPLAR_POINT
                        ? {
                            exemplars: [
                              {
                                timeUnixNano: at(k).toString(),
                                asInt: "7",
                                traceId: EXEMPLAR_TRACE,
                                spanId: "eee19b7ec3c1b174",
                              },
                            ],
                          }
                        : {}),
                    })),
                    ...points.map((k) => ({
                      startTimeUnixNano: (k < OUTPUT_RESTART ? start : restart).toString(),
                      timeUnixNano: at(k).toString(),
                      asInt: String(OUTPUT_PER_POINT * (k < OUTPUT_RESTART ? k + 1 : k - OUTPUT_RESTART + 1)),
                      attributes: [text("gen_ai.token.type", "output")],
                    })),
                  ],
                },
              },
            ],
          },
        ],
      },
    ],
  };
  for (const request of [gauge, counter]) {
    const batch = decodeMetricRequest(Buffer.from(JSON.stringify(request)), "json");
    store.writer.transaction(() => store.writer.writeMetrics(batch, 0n));
  }
  store.writer.writeHeld();
}

/**
 * OTLP/JSON metrics requests for the decoder tests: one with every point kind and field, and
 * the same request in the form protobufjs encodes (ids as bytes).
 */

export const T0 = 1_700_000_000_000_000_000n;
export const TRACE_ID = "5b8efff798038103d269b633813fc60c";
export const SPAN_ID = "eee19b7ec3c1b174";

function ns(offset: number): string {
  return (T0 + BigInt(offset)).toString();
}

function attribute(key: string, value: Record<string, unknown>) {
  return { key, value };
}

/** A request with one metric of each kind, each point field set at least once, and edge values. */
export function everyKindRequest(): Record<string, unknown> {
  const exemplar = {
    filteredAttributes: [attribute("user", { stringValue: "ann" })],
    timeUnixNano: ns(1),
    asDouble: 0.25,
    traceId: TRACE_ID,
    spanId: SPAN_ID,
  };
  return {
    resourceMetrics: [
      {
        resource: { attributes: [attribute("service.name", { stringValue: "shop" })] },
        schemaUrl: "https://opentelemetry.io/schemas/1.24.0",
        scopeMetrics: [
          {
            scope: { name: "meter", version: "2.0" },
            metrics: [
              {
                name: "queue.depth",
                description: "Items waiting",
                unit: "{item}",
                metadata: [attribute("origin", { stringValue: "sampler" })],
                gauge: {
                  dataPoints: [
                    { timeUnixNano: ns(10), asDouble: 3.5, attributes: [attribute("queue", { stringValue: "a" })] },
                    { timeUnixNano: ns(20), asInt: "-42", flags: 1 },
                    { timeUnixNano: ns(30), asDouble: "NaN" },
                    { timeUnixNano: ns(40), asInt: "9007199254740993" },
                  ],
                },
              },
              {
                name: "requests",
                unit: "1",
                sum: {
                  aggregationTemporality: "AGGREGATION_TEMPORALITY_CUMULATIVE",
                  isMonotonic: true,
                  dataPoints: [
                    {
                      startTimeUnixNano: ns(0),
                      timeUnixNano: ns(10),
                      asInt: "17",
                      attributes: [attribute("code", { intValue: "200" }), attribute("ok", { boolValue: true })],
                      exemplars: [{ ...exemplar, asDouble: undefined, asInt: "1" }],
                    },
                  ],
                },
              },
              {
                name: "balance",
                sum: {
                  aggregationTemporality: 1,
                  isMonotonic: false,
                  dataPoints: [{ startTimeUnixNano: ns(0), timeUnixNano: ns(10), asDouble: "-Infinity" }],
                },
              },
              {
                name: "latency",
                unit: "s",
                histogram: {
                  aggregationTemporality: 2,
                  dataPoints: [
                    {
                      startTimeUnixNano: ns(0),
                      timeUnixNano: ns(10),
                      count: "6",
                      sum: 1.5,
                      min: 0.01,
                      max: 0.9,
                      bucketCounts: ["1", "2", "3"],
                      explicitBounds: [0.1, 0.5],
                      exemplars: [exemplar, { timeUnixNano: ns(2), asDouble: "Infinity" }],
                      flags: 0,
                    },
                    { startTimeUnixNano: ns(0), timeUnixNano: ns(20), count: "0" },
                  ],
                },
              },
              {
                name: "size",
                unit: "By",
                exponentialHistogram: {
                  aggregationTemporality: 1,
                  dataPoints: [
                    {
                      startTimeUnixNano: ns(0),
                      timeUnixNano: ns(10),
                      count: "9",
                      sum: -2,
                      scale: -3,
                      zeroCount: "1",
                      zeroThreshold: 1e-9,
                      positive: { offset: -2, bucketCounts: ["0", "4", "1"] },
                      negative: { offset: 5, bucketCounts: ["3"] },
                      min: -8,
                      max: 100,
                      exemplars: [exemplar],
                    },
                    { timeUnixNano: ns(20), scale: 4 },
                  ],
                },
              },
              {
                name: "rpc.duration",
                summary: {
                  dataPoints: [
                    {
                      startTimeUnixNano: ns(0),
                      timeUnixNano: ns(10),
                      count: "4",
                      sum: 10,
                      quantileValues: [
                        { quantile: 0, value: 1 },
                        { quantile: 0.5, value: 2.5 },
                        { quantile: 1, value: 4 },
                      ],
                      attributes: [attribute("method", { stringValue: "get" })],
                    },
                  ],
                },
              },
              { name: "no.data", description: "a metric with no data field adds no point" },
            ],
          },
        ],
      },
    ],
  };
}

const ID_FIELDS = new Set(["traceId", "spanId"]);

/** The same request as protobufjs's fromObject takes it: ids as bytes (the rest it converts itself). */
export function protobufForm(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(protobufForm);
  if (value === null || typeof value !== "object") return value;
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) {
    if (item === undefined) continue;
    out[key] = ID_FIELDS.has(key) && typeof item === "string" ? Buffer.from(item, "hex") : protobufForm(item);
  }
  return out;
}

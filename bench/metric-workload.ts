import { blankPoint } from "../daemon/otlp/metric-points.js";
import type { MetricBatch, MetricPointRecord } from "../daemon/otlp/records.js";
import { encodeMetrics } from "../test/helpers/otlp-metrics-protobuf.js";

/**
 * Metric export requests as an SDK sends them: each service exports every interval one
 * request holding one point of each of its series (a cumulative counter), each point with
 * 10 attributes. 5,000 series are 50 services of 100 series.
 */
export const SERVICES = 50;
export const SERIES_PER_SERVICE = 100;
export const INTERVAL_S = 10;
export const ATTRIBUTES_PER_POINT = 10;

const S = 1_000_000_000n;

function attributes(service: number, series: number): { key: string; value: { stringValue: string } }[] {
  const values = [
    ["http.route", `/api/v1/resource/${series}`],
    ["http.request.method", ["GET", "POST", "PUT", "DELETE"][series % 4] as string],
    ["http.response.status_code", String([200, 201, 404, 500][series % 4])],
    ["server.address", `host-${service % 5}.internal`],
    ["network.protocol.version", "1.1"],
    ["url.scheme", "https"],
    ["deployment.environment", "production"],
    ["cloud.region", `region-${service % 3}`],
    ["k8s.pod.name", `pod-${service}-${series % 10}`],
    ["tenant.id", `tenant-${series % 17}`],
  ];
  return values.map(([key, value]) => ({ key: key as string, value: { stringValue: value as string } }));
}

/** One service's export at interval `k` (times from `startNs`), as an OTLP/JSON-shaped object. */
export function exportRequest(service: number, k: number, startNs: bigint): Record<string, unknown> {
  const timeNs = startNs + BigInt(k * INTERVAL_S) * S;
  return {
    resourceMetrics: [
      {
        resource: { attributes: [{ key: "service.name", value: { stringValue: `svc-${service}` } }] },
        scopeMetrics: [
          {
            scope: { name: "bench-meter", version: "1.0" },
            metrics: [
              {
                name: "http.server.request.count",
                unit: "{request}",
                sum: {
                  aggregationTemporality: 2,
                  isMonotonic: true,
                  dataPoints: Array.from({ length: SERIES_PER_SERVICE }, (_, series) => ({
                    startTimeUnixNano: String(startNs - 60n * S),
                    timeUnixNano: String(timeNs),
                    asInt: String(k * (series + 1)),
                    attributes: attributes(service, series),
                  })),
                },
              },
            ],
          },
        ],
      },
    ],
  };
}

/**
 * `intervals` export intervals of every service, as protobuf bodies, in time order, from
 * interval `first` on (the intervals before it are a store's history).
 */
export function protobufBodies(intervals: number, startNs: bigint, first = 0): Buffer[] {
  const bodies: Buffer[] = [];
  for (let k = first; k < first + intervals; k++) {
    for (let service = 0; service < SERVICES; service++) bodies.push(encodeMetrics(exportRequest(service, k, startNs)));
  }
  return bodies;
}

/**
 * Decoded points for filling a store fast (the query half): `series` gauge-like counters over
 * `services` services, one point per series per `INTERVAL_S` from `startNs`, `intervals` of them,
 * in batches of one interval each.
 */
export function* fillBatches(
  series: number,
  services: number,
  intervals: number,
  startNs: bigint,
): Generator<MetricBatch> {
  const resources = Array.from({ length: services }, (_, s) => ({
    hash: `bench-resource-${s}`,
    serviceName: `svc-${s}`,
    attributes: JSON.stringify({ "service.name": `svc-${s}` }),
    droppedAttributesCount: 0,
    schemaUrl: null,
  }));
  const scopes = [
    {
      hash: "bench-scope",
      name: "bench-meter",
      version: null,
      attributes: "{}",
      droppedAttributesCount: 0,
      schemaUrl: null,
    },
  ];
  for (let k = 0; k < intervals; k++) {
    const timeNs = startNs + BigInt(k * INTERVAL_S) * S;
    const points: MetricPointRecord[] = [];
    for (let i = 0; i < series; i++) {
      const route = `/r/${i % 50}`;
      points.push({
        ...blankPoint(i % services, 0),
        name: "http.server.request.count",
        unit: "{request}",
        kind: "sum",
        temporality: 2,
        monotonic: true,
        attributes: JSON.stringify({ "http.route": route, instance: String(i) }),
        indexed: ["http.route", route, "instance", String(i)],
        startNs: startNs - 60n * S,
        timeNs,
        value: k * ((i % 7) + 1),
      });
    }
    yield { resources, scopes, points };
  }
}

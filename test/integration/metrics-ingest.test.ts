import { gzipSync } from "node:zlib";
import { expect } from "chai";
import { type CollectorProcess, startCollectorProcess } from "../helpers/collector-process.js";
import { http, postJson } from "../helpers/http.js";
import { encodeMetrics, metricsFixture, metricsTypes } from "../helpers/otlp-metrics-protobuf.js";

const NOW = BigInt(Date.now()) * 1_000_000n;
const S = 1_000_000_000n;

interface PointSpec {
  /** Seconds before now. */
  ago: number;
  value: number;
  route?: string;
}

/** An OTLP metrics request (JSON form, also protobufjs's plain-object form) of one cumulative counter. */
function counterRequest(service: string, points: PointSpec[]): Record<string, unknown> {
  return {
    resourceMetrics: [
      {
        resource: { attributes: [{ key: "service.name", value: { stringValue: service } }] },
        scopeMetrics: [
          {
            scope: { name: "test-meter" },
            metrics: [
              {
                name: "http.requests",
                unit: "{request}",
                sum: {
                  aggregationTemporality: 2,
                  isMonotonic: true,
                  dataPoints: points.map((point) => ({
                    startTimeUnixNano: String(NOW - 3600n * S),
                    timeUnixNano: String(NOW - BigInt(point.ago) * S),
                    asDouble: point.value,
                    attributes: [{ key: "route", value: { stringValue: point.route ?? "/" } }],
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

async function counts(url: string): Promise<{ series: number; points: number }> {
  return (await http(`${url}/api/health`)).json().counts;
}

function postProtobuf(url: string, body: Buffer, headers: Record<string, string> = {}) {
  return http(`${url}/v1/metrics`, {
    method: "POST",
    headers: { "content-type": "application/x-protobuf", ...headers },
    body,
  });
}

describe("metrics ingestion over HTTP (real obsd)", function () {
  this.timeout(30_000);
  let obsd: CollectorProcess;

  before(async () => {
    obsd = await startCollectorProcess();
  });
  after(async () => {
    expect(await obsd.stop()).to.equal(0);
  });

  it("answers OTLP/JSON with the data points counted, after they are stored", async () => {
    const before = await counts(obsd.url);
    const request = counterRequest("shop", [
      { ago: 20, value: 1 },
      { ago: 10, value: 4 },
      { ago: 10, value: 2, route: "/cart" },
    ]);
    const res = await postJson(`${obsd.url}/v1/metrics`, request);
    expect(res.status).to.equal(200);
    expect(res.json()).to.deep.equal({ accepted: 3 });
    const after = await counts(obsd.url);
    expect([after.points - before.points, after.series - before.series]).to.deep.equal([3, 2]);
  });

  it("answers OTLP/protobuf, plain and gzip, with a body both JSON and an empty response", async () => {
    const before = await counts(obsd.url);
    const plain = await postProtobuf(obsd.url, encodeMetrics(counterRequest("proto", [{ ago: 5, value: 1 }])));
    expect(plain.status).to.equal(200);
    expect(plain.json()).to.deep.equal({ accepted: 1 });
    const response = metricsTypes.root.lookupType(
      "opentelemetry.proto.collector.metrics.v1.ExportMetricsServiceResponse",
    );
    expect(response.toObject(response.decode(plain.body))).to.deep.equal({});
    const zipped = gzipSync(
      encodeMetrics(
        counterRequest("proto", [
          { ago: 4, value: 2 },
          { ago: 3, value: 3 },
        ]),
      ),
    );
    const gz = await postProtobuf(obsd.url, zipped, { "content-encoding": "gzip" });
    expect(gz.json()).to.deep.equal({ accepted: 2 });
    const after = await counts(obsd.url);
    expect([after.points - before.points, after.series - before.series]).to.deep.equal([3, 1]);
  });

  it("stores a resent request once, and acknowledges every point each time", async () => {
    const request = counterRequest("resend", [
      { ago: 30, value: 1 },
      { ago: 20, value: 2 },
    ]);
    const before = await counts(obsd.url);
    for (let i = 0; i < 3; i++) {
      expect((await postJson(`${obsd.url}/v1/metrics`, request)).json()).to.deep.equal({ accepted: 2 });
    }
    const after = await counts(obsd.url);
    expect(after.points - before.points).to.equal(2);
  });

  it("rejects points older than retention as a partial success, in both encodings", async () => {
    // The spec's example is from 2018, past the default 7-day retention.
    const example = JSON.parse(metricsFixture()) as Record<string, unknown>;
    const old = await postJson(`${obsd.url}/v1/metrics`, example);
    expect(old.status).to.equal(200);
    const answer = old.json();
    expect(answer.accepted).to.equal(0);
    expect(answer.partialSuccess.rejectedDataPoints).to.be.above(0);
    expect(answer.partialSuccess.errorMessage).to.match(/retention/);

    const mixed = counterRequest("mixed", [
      { ago: 30 * 86_400, value: 1 },
      { ago: 1, value: 2 },
    ]);
    const partial = (await postJson(`${obsd.url}/v1/metrics`, mixed)).json();
    expect(partial.accepted).to.equal(1);
    expect(partial.partialSuccess.rejectedDataPoints).to.equal(1);
    expect(partial.partialSuccess.errorMessage).to.match(/^1 data point is older than the retention window/);
    const proto = await postProtobuf(
      obsd.url,
      encodeMetrics(counterRequest("mixed-proto", [{ ago: 30 * 86_400, value: 1 }])),
    );
    const response = metricsTypes.root.lookupType(
      "opentelemetry.proto.collector.metrics.v1.ExportMetricsServiceResponse",
    );
    const decoded = response.toObject(response.decode(proto.body), { longs: Number }) as {
      partialSuccess?: { rejectedDataPoints?: number };
    };
    expect(decoded.partialSuccess?.rejectedDataPoints).to.equal(1);
  });

  it("rejects points with no time as a partial success that says so, not as older than retention", async () => {
    const request = counterRequest("untimed", [
      { ago: 30 * 86_400, value: 1 },
      { ago: 2, value: 2 },
      { ago: 1, value: 3 },
    ]);
    // The third point's time absent, as a sender that never set it sends it.
    const points = (
      (request.resourceMetrics as Record<string, unknown>[])[0] as {
        scopeMetrics: { metrics: { sum: { dataPoints: Record<string, unknown>[] } }[] }[];
      }
    ).scopeMetrics[0]!.metrics[0]!.sum.dataPoints;
    delete points[2]!.timeUnixNano;
    const answer = (await postJson(`${obsd.url}/v1/metrics`, request)).json();
    expect(answer.accepted).to.equal(1);
    expect(answer.partialSuccess.rejectedDataPoints).to.equal(2);
    expect(answer.partialSuccess.errorMessage).to.match(
      /^1 data point has no time \(timeUnixNano is 0 or absent\) and was not stored: OTLP requires it; 1 data point is older than the retention window/,
    );
    // Two series with no time: two points (of one series, they would be one point sent twice).
    for (const point of points) delete point.timeUnixNano;
    points[0]!.attributes = [{ key: "route", value: { stringValue: "/other" } }];
    const none = (await postJson(`${obsd.url}/v1/metrics`, request)).json();
    expect(none.partialSuccess.errorMessage).to.match(/^2 data points have no time/);
    expect(none.partialSuccess.errorMessage).to.not.match(/retention/);
  });

  it("refuses what /v1/traces refuses: bad payloads, methods, content types and bodies over the cap", async () => {
    expect((await postJson(`${obsd.url}/v1/metrics`, "{oops")).status).to.equal(400);
    expect((await postProtobuf(obsd.url, Buffer.from([0x0a, 0xff, 0xff]))).status).to.equal(400);
    const get = await http(`${obsd.url}/v1/metrics`);
    expect(get.status).to.equal(405);
    expect(get.headers.allow).to.match(/POST/);
    const text = await http(`${obsd.url}/v1/metrics`, {
      method: "POST",
      headers: { "content-type": "text/plain" },
      body: "{}",
    });
    expect(text.status).to.equal(415);
    const big = await http(`${obsd.url}/v1/metrics`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: Buffer.alloc(16 * 1024 * 1024 + 1, 0x20),
    });
    expect(big.status).to.equal(413);
    expect((await postJson(`${obsd.url}/v1/metrics`, {})).json()).to.deep.equal({ accepted: 0 });
  });

  it("refuses a foreign Host header and sends CORS headers to loopback origins only", async () => {
    const evil = await http(`${obsd.url}/v1/metrics`, {
      method: "POST",
      headers: { host: "evil.example", "content-type": "application/json" },
      body: "{}",
    });
    expect(evil.status).to.equal(403);
    const preflight = await http(`${obsd.url}/v1/metrics`, {
      method: "OPTIONS",
      headers: { origin: "http://localhost:5173", "access-control-request-method": "POST" },
    });
    expect(preflight.status).to.equal(204);
    expect(preflight.headers["access-control-allow-origin"]).to.equal("http://localhost:5173");
    const foreign = await http(`${obsd.url}/v1/metrics`, {
      method: "OPTIONS",
      headers: { origin: "https://evil.example" },
    });
    expect(foreign.headers["access-control-allow-origin"]).to.equal(undefined);
  });
});

import { serialize } from "node:v8";
import { expect } from "chai";
import { decodeMetricRequest } from "../../../daemon/otlp/decode-request.js";
import type { MetricBatch, MetricPointRecord } from "../../../daemon/otlp/records.js";
import { MAX_STORED_NS } from "../../../daemon/otlp/stored-time.js";
import { packedPointCount, packMetricPoints, unpackMetricPoints } from "../../../daemon/store/packed-metric-points.js";
import { everyKindRequest } from "../../helpers/metric-requests.js";
import { metricsFixture } from "../../helpers/otlp-metrics-protobuf.js";

/** The batch as it is unpacked: its points' index entries do not cross (the writer derives them). */
function withoutIndexed(batch: MetricBatch): MetricBatch {
  return { ...batch, points: batch.points.map((point) => ({ ...point, indexed: [] })) };
}

/** Every point of a packed batch, in one slice (no test batch is this large). */
const ONE_SLICE = 100_000;

function everyKind(): MetricBatch {
  return decodeMetricRequest(Buffer.from(JSON.stringify(everyKindRequest())), "json");
}

/** Points whose numbers a column could lose: NaN, -0, infinities, the widest flags and times, null against 0. */
function edgeValues(): MetricBatch {
  const batch = everyKind();
  const sum = batch.points.find((point) => point.kind === "sum") as MetricPointRecord;
  const histogram = batch.points.find((point) => point.kind === "histogram") as MetricPointRecord;
  const edges: Partial<MetricPointRecord>[] = [
    { value: Number.NaN, flags: 1 },
    { value: -0, flags: 0xffffffff, metadata: '{"owner":"team"}' },
    { value: Number.POSITIVE_INFINITY, startNs: 0n, timeNs: MAX_STORED_NS },
    { value: Number.NEGATIVE_INFINITY, monotonic: true, temporality: 2 },
    { value: 2 ** 53 + 2, exemplars: '[{"value":1}]' },
  ];
  const points = edges.map((edge) => ({ ...sum, ...edge }));
  points.push({ ...histogram, sum: null, min: null, max: null, count: 0 });
  points.push({ ...histogram, sum: 0, min: -0, max: Number.NaN });
  // Points of other resources and scopes than the first, each its own.
  const resources = [0, 1, 2].map((i) => ({ ...(batch.resources[0] as (typeof batch.resources)[0]), hash: `r${i}` }));
  const scopes = [0, 1, 2, 3].map((i) => ({ ...(batch.scopes[0] as (typeof batch.scopes)[0]), hash: `s${i}` }));
  points.forEach((point, i) => {
    point.resource = i % 3;
    point.scope = (i + 1) % 4;
  });
  return { ...batch, resources, scopes, points };
}

describe("packed metric points", () => {
  it("give back exactly the points they were packed from but their index entries: every kind, the spec's example, edge values", () => {
    for (const batch of [decodeMetricRequest(Buffer.from(metricsFixture()), "json"), everyKind(), edgeValues()]) {
      expect(batch.points.some((point) => point.indexed.length > 0)).to.equal(true);
      const packed = packMetricPoints(batch);
      expect(packedPointCount(packed)).to.equal(batch.points.length);
      const [slice] = [...unpackMetricPoints(structuredClone(packed), ONE_SLICE)];
      expect(slice).to.deep.equal(withoutIndexed(batch));
      // deep.equal takes -0 and 0 for the same number.
      (slice as MetricBatch).points.forEach((point, i) => {
        const sent = batch.points[i] as MetricPointRecord;
        for (const field of ["value", "sum", "min", "max"] as const)
          expect(Object.is(point[field], sent[field])).to.equal(true);
      });
    }
  });

  it("give the points back in slices of the size asked, in order, histograms' buckets with their own points", () => {
    const batch = everyKind();
    const slices = [...unpackMetricPoints(packMetricPoints(batch), 3)];
    expect(slices.map((slice) => slice.points.length)).to.deep.equal([3, 3, 3, 2]);
    expect(slices.flatMap((slice) => slice.points)).to.deep.equal(withoutIndexed(batch).points);
    for (const slice of slices) expect([slice.resources, slice.scopes]).to.deep.equal([batch.resources, batch.scopes]);
  });

  it("cross a thread boundary as numbers in typed arrays, sending a metric's name once and fewer bytes than the points", () => {
    const batch = everyKind();
    const packed = packMetricPoints(batch);
    expect(packed.strings.filter((text) => text === "queue.depth")).to.have.length(1);
    expect([packed.ints, packed.floats, packed.times].map((column) => column.constructor.name)).to.deep.equal([
      "Uint32Array",
      "Float64Array",
      "BigInt64Array",
    ]);
    expect(serialize(packed).length).to.be.below(serialize(batch).length);
  });
});

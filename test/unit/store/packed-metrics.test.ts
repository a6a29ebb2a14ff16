import { serialize } from "node:v8";
import { expect } from "chai";
import { decodeMetricRequest } from "../../../daemon/otlp/decode-request.js";
import type { MetricBatch } from "../../../daemon/otlp/records.js";
import { KnownAttributeTexts } from "../../../daemon/store/known-attribute-texts.js";
import { packedMetricCount, packMetrics, unpackMetricSlices } from "../../../daemon/store/packed-batch.js";
import { everyKindRequest } from "../../helpers/metric-requests.js";
import { metricsFixture } from "../../helpers/otlp-metrics-protobuf.js";

/** The batch as it is unpacked: its points' index entries do not cross (the writer derives them). */
function withoutIndexed(batch: MetricBatch): MetricBatch {
  return { ...batch, points: batch.points.map((point) => ({ ...point, indexed: [] })) };
}

/** Every point of a packed batch, in one slice (no test batch is this large). */
const ONE_SLICE = 100_000;

function batches() {
  return [
    decodeMetricRequest(Buffer.from(metricsFixture()), "json"),
    decodeMetricRequest(Buffer.from(JSON.stringify(everyKindRequest())), "json"),
  ];
}

describe("packed metric batches", () => {
  it("give back exactly the points they were packed from but their index entries: every kind, and the spec's example", () => {
    for (const batch of batches()) {
      expect(batch.points.some((point) => point.indexed.length > 0)).to.equal(true);
      const packed = packMetrics(batch);
      expect(packedMetricCount(packed)).to.equal(batch.points.length);
      expect(packed.indexed).to.deep.equal([]);
      expect([...unpackMetricSlices(packed, ONE_SLICE)]).to.deep.equal([withoutIndexed(batch)]);
    }
  });

  it("give the points back in slices of the size asked, in order", () => {
    const batch = batches()[1];
    if (batch === undefined) throw new Error("no batch");
    const slices = [...unpackMetricSlices(packMetrics(batch), 3)];
    expect(slices.map((slice) => slice.points.length)).to.deep.equal([3, 3, 3, 2]);
    expect(slices.flatMap((slice) => slice.points)).to.deep.equal(withoutIndexed(batch).points);
    for (const slice of slices) expect([slice.resources, slice.scopes]).to.deep.equal([batch.resources, batch.scopes]);
  });

  it("cross a thread boundary intact (structured clone) and send a metric's name once", () => {
    const batch = batches()[1];
    if (batch === undefined) throw new Error("no batch");
    const packed = packMetrics(batch);
    const cloned = structuredClone(packed);
    expect([...unpackMetricSlices(cloned, ONE_SLICE)]).to.deep.equal([withoutIndexed(batch)]);
    expect(packed.strings.filter((text) => text === "queue.depth")).to.have.length(1);
    expect(serialize(packed).length).to.be.below(serialize(batch).length);
  });

  it("carry each point's attribute set number, and give the same points back through the writer's texts", () => {
    const batch = batches()[1];
    if (batch === undefined) throw new Error("no batch");
    const numbers = new Map<string, number>();
    const packed = packMetrics(batch, (json) => {
      if (!numbers.has(json)) numbers.set(json, numbers.size + 1);
      return numbers.get(json) as number;
    });
    expect(packed.attributeSets).to.deep.equal(batch.points.map((point) => numbers.get(point.attributes)));
    expect(packMetrics(batch).attributeSets).to.deep.equal(batch.points.map(() => 0));
    const texts = new KnownAttributeTexts();
    for (let i = 0; i < 2; i++) {
      const slices = [...unpackMetricSlices(structuredClone(packed), 4, texts)];
      expect(slices.flatMap((slice) => slice.points)).to.deep.equal(withoutIndexed(batch).points);
    }
  });
});

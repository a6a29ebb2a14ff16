import { expect } from "chai";
import { decodeMetricRequest } from "../../../daemon/otlp/decode-request.js";
import type { MetricBatch, MetricPointRecord } from "../../../daemon/otlp/records.js";
import {
  MissingAttributeTextError,
  ReceivedAttributeTexts,
  SentAttributeTexts,
} from "../../../daemon/store/attribute-text-crossing.js";
import {
  type PackedMetricPoints,
  packMetricPoints,
  unpackMetricPoints,
} from "../../../daemon/store/packed-metric-points.js";
import { everyKindRequest } from "../../helpers/metric-requests.js";

function everyKind(): MetricBatch {
  return decodeMetricRequest(Buffer.from(JSON.stringify(everyKindRequest())), "json");
}

/** The batch as it is unpacked: its points' index entries do not cross (the writer derives them). */
function withoutIndexed(batch: MetricBatch): MetricBatch {
  return { ...batch, points: batch.points.map((point) => ({ ...point, indexed: [] })) };
}

/** One point per set number, of attributes `{"set":N}`. */
function pointsOf(sets: number[]): MetricBatch {
  const batch = everyKind();
  const point = batch.points[0] as MetricPointRecord;
  return { ...batch, points: sets.map((set) => ({ ...point, attributes: `{"set":${set}}`, attributeSet: set })) };
}

/** Leaves out what `sent` has sent, then posts (a structured clone, as postMessage makes). */
function post(sent: SentAttributeTexts, batch: MetricBatch, firstLive = 1): PackedMetricPoints {
  const packed = packMetricPoints(batch);
  const posted = sent.leave(packed, firstLive);
  const crossed = structuredClone(packed);
  posted();
  return crossed;
}

const left = (packed: PackedMetricPoints) => packed.attributes.map((text) => text === null);

describe("attribute texts crossing from a decoder to the writer", () => {
  it("carry each set's text once per decoder, and the writer restores the same points from the numbers", () => {
    const unnumberedBatch = everyKind();
    const numbers = new Map<string, number>();
    const batch = {
      ...unnumberedBatch,
      points: unnumberedBatch.points.map((point) => {
        if (!numbers.has(point.attributes)) numbers.set(point.attributes, numbers.size + 1);
        return { ...point, attributeSet: numbers.get(point.attributes) as number };
      }),
    };
    expect(numbers.size).to.be.above(1).and.below(batch.points.length);
    const sent = new SentAttributeTexts();
    const received = new ReceivedAttributeTexts();
    for (let i = 0; i < 3; i++) {
      const crossed = post(sent, batch);
      // The first batch carries each text with its set's first point; the later ones carry none.
      const carried = crossed.attributes.filter((text) => text !== null).length;
      expect(carried).to.equal(i === 0 ? numbers.size : 0);
      received.arrive(crossed);
      const slices = [...unpackMetricPoints(crossed, 4)];
      expect(slices.flatMap((slice) => slice.points)).to.deep.equal(withoutIndexed(batch).points);
    }
    expect(received.size).to.equal(numbers.size);
    // Unnumbered sets (OTLP/JSON's) always carry their text.
    const plain = post(sent, unnumberedBatch);
    expect(plain.attributes.every((text) => typeof text === "string")).to.equal(true);
  });

  it("marks nothing sent for a batch whose post failed: the next one carries its texts", () => {
    const sent = new SentAttributeTexts();
    const received = new ReceivedAttributeTexts();
    sent.leave(packMetricPoints(pointsOf([1, 2])), 1); // postMessage threw: never called back
    const next = post(sent, pointsOf([1, 2, 3]));
    expect(left(next)).to.deep.equal([false, false, false]);
    received.arrive(next);
    const after = post(sent, pointsOf([3, 2, 1]));
    expect(left(after)).to.deep.equal([true, true, true]);
    received.arrive(after);
    expect(after.attributes).to.deep.equal(['{"set":3}', '{"set":2}', '{"set":1}']);
  });

  it("refuses a batch whose left-out text was never received, and still keeps the texts it carried", () => {
    const sent = new SentAttributeTexts();
    const received = new ReceivedAttributeTexts();
    post(sent, pointsOf([1, 2])); // lost on the way: the writer never sees it
    const broken = post(sent, pointsOf([1, 3, 2, 4]));
    expect(left(broken)).to.deep.equal([true, false, true, false]);
    expect(() => received.arrive(broken)).to.throw(
      MissingAttributeTextError,
      /point 0: the text of attribute set 1 was left out but never received/,
    );
    expect(() => [...unpackMetricPoints(broken, 4)]).to.throw(/attributes were not restored/);
    // Sets 3 and 4 arrived with the refused batch: a batch of them alone is restored.
    const later = post(sent, pointsOf([4, 3]));
    expect(left(later)).to.deep.equal([true, true]);
    received.arrive(later);
    expect(later.attributes).to.deep.equal(['{"set":4}', '{"set":3}']);
  });

  it("forgets the numbers of a memo that started over, on both sides, after the batch that says so", () => {
    const sent = new SentAttributeTexts();
    const received = new ReceivedAttributeTexts();
    const cross = (sets: number[], firstLive: number) => {
      const crossed = post(sent, pointsOf(sets), firstLive);
      const leftOut = left(crossed);
      received.arrive(crossed);
      expect(crossed.attributes).to.deep.equal(sets.map((set) => `{"set":${set}}`));
      return leftOut;
    };
    expect(cross([1, 2, 1], 1)).to.deep.equal([false, false, true]);
    // The memo started over within this request: its points of set 2 still resolve.
    expect(cross([2, 3, 3], 3)).to.deep.equal([true, false, true]);
    expect([sent.size, received.size]).to.deep.equal([1, 1]);
    expect(cross([3, 4], 3)).to.deep.equal([true, false]);
  });

  it("keeps each decoder's texts apart: a replacement decoder's numbers are its own", () => {
    const one = (text: string) => {
      const batch = pointsOf([1]);
      return { ...batch, points: batch.points.map((point) => ({ ...point, attributes: text })) };
    };
    const [first, second] = [new SentAttributeTexts(), new SentAttributeTexts()];
    const [firstPort, secondPort] = [new ReceivedAttributeTexts(), new ReceivedAttributeTexts()];
    const send = (sender: SentAttributeTexts, port: ReceivedAttributeTexts, text: string) => {
      const crossed = post(sender, one(text));
      port.arrive(crossed);
      return crossed.attributes[0];
    };
    expect(send(first, firstPort, '{"a":1}')).to.equal('{"a":1}');
    expect(send(second, secondPort, '{"b":2}')).to.equal('{"b":2}');
    // A late batch of the first decoder, after the second started.
    expect(send(first, firstPort, '{"a":1}')).to.equal('{"a":1}');
    expect(send(second, secondPort, '{"b":2}')).to.equal('{"b":2}');
  });
});

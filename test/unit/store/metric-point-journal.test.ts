import { expect } from "chai";
import {
  JOURNAL_POINT_WIDTH,
  type JournalRefs,
  journalPointTime,
  unpackJournalPoint,
  unpackJournalPoints,
  unpackJournalRefs,
} from "../../../daemon/store/metric-point-journal.js";
import { packJournalRows } from "../../helpers/metric-points.js";

describe("metric point journal rows", () => {
  const points = [
    [1, 1_700_000_000_123_456_789n, 1_699_999_000_000_000_001n, 0, 4.5, null, null, null, null, null, null],
    [
      2 ** 40,
      9_223_372_036_854_775_807n,
      -1n,
      1,
      null,
      12,
      -0.25,
      1e-300,
      1.7976931348623157e308,
      '{"bounds":[1,5]}',
      null,
    ],
    [
      3,
      0n,
      0n,
      4_294_967_295,
      Number.NaN,
      0,
      Number.POSITIVE_INFINITY,
      -3,
      3,
      "",
      '["5b8efff798038103d269b633813fc60c"]',
    ],
    [4, 5n, 4n, 2, -7, null, null, null, null, "ünïcödé ✓ 𝄞", "x".repeat(70_000)],
  ];

  it("gives back every point's values as packed, nulls, text and 64-bit times included", () => {
    const values = points.flat();
    expect(values.length).to.equal(points.length * JOURNAL_POINT_WIDTH);
    expect(unpackJournalPoints(packJournalRows(values))).to.deep.equal(values);
  });

  it("gives back each point, and its time, from the offset it was packed at", () => {
    const offsets: number[] = [];
    const bytes = packJournalRows(points.flat(), offsets);
    expect(offsets).to.have.length(points.length);
    // Backwards, so that no point is read from where the one before it ended.
    for (let i = points.length - 1; i >= 0; i--) {
      const out: unknown[] = [];
      const next = unpackJournalPoint(bytes, offsets[i] as number, out);
      expect(out).to.deep.equal(points[i]);
      expect(next).to.equal(offsets[i + 1] ?? bytes.length);
      expect(journalPointTime(bytes, offsets[i] as number)).to.equal(points[i]?.[1]);
    }
  });

  it("reads a chunk of held points, from several requests' bytes in turn, into an array it empties first", () => {
    const first = packJournalRows(points.flat());
    const reversed = [...points].reverse();
    const second = packJournalRows(reversed.flat());
    const offsetsOf = (bytes: Buffer) => {
      const offsets: number[] = [];
      for (let at = 0; at < bytes.length; ) {
        offsets.push(at);
        at = unpackJournalPoint(bytes, at, []);
      }
      return offsets;
    };
    const [a, b] = [offsetsOf(first), offsetsOf(second)];
    // Alternately a point of each request: the bytes read change at every point.
    const refs: JournalRefs = [first, a[2] as number, second, b[0] as number, first, a[0] as number];
    const out: unknown[] = ["left from the chunk before"];
    unpackJournalRefs(refs, 1, 2, out);
    expect(out).to.deep.equal([...(reversed[0] as unknown[]), ...(points[0] as unknown[])]);
    unpackJournalRefs(refs, 0, 3, out);
    expect(out).to.deep.equal([
      ...(points[2] as unknown[]),
      ...(reversed[0] as unknown[]),
      ...(points[0] as unknown[]),
    ]);
    // A smaller chunk after a larger one: nothing of the larger is left behind.
    unpackJournalRefs(refs, 2, 1, out);
    expect(out).to.deep.equal(points[0]);
  });

  it("packs no points as no bytes", () => {
    expect(packJournalRows([]).length).to.equal(0);
    expect(unpackJournalPoints(new Uint8Array())).to.deep.equal([]);
  });
});

import { expect } from "chai";
import {
  JOURNAL_POINT_WIDTH,
  packJournalPoints,
  unpackJournalPoints,
} from "../../../daemon/store/metric-point-journal.js";

describe("metric point journal rows", () => {
  it("gives back every point's values as packed, nulls, text and 64-bit times included", () => {
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
    const values = points.flat();
    expect(values.length).to.equal(points.length * JOURNAL_POINT_WIDTH);
    expect(unpackJournalPoints(packJournalPoints(values))).to.deep.equal(values);
  });

  it("packs no points as no bytes", () => {
    expect(packJournalPoints([]).length).to.equal(0);
    expect(unpackJournalPoints(new Uint8Array())).to.deep.equal([]);
  });
});

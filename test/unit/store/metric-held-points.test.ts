import { expect } from "chai";
import { HeldPoints } from "../../../daemon/store/metric-held-points.js";
import { type JournalRefs, unpackJournalRefs } from "../../../daemon/store/metric-point-journal.js";
import { packJournalRows } from "../../helpers/metric-points.js";

describe("a series' held points", () => {
  it("holds a series' points by their offsets, oldest first, and gives them back once", () => {
    const S = 1_000_000_000n;
    const row = (seriesId: number, seconds: bigint, value: number) => [
      seriesId,
      seconds * S,
      0n,
      0,
      value,
      null,
      null,
      null,
      null,
      null,
      null,
    ];
    // Two requests, each with a point of series 7 among others.
    const first = [row(6, 10n, 1), row(7, 10n, 2)];
    const second = [row(7, 20n, 3), row(8, 20n, 4)];
    const held = new HeldPoints();
    expect(held.firstTimeNs()).to.equal(undefined);
    for (const [request, index] of [
      [first, 1],
      [second, 0],
    ] as const) {
      const offsets: number[] = [];
      const bytes = packJournalRows(request.flat(), offsets);
      held.add(bytes, offsets[index] as number);
    }
    expect(held.count).to.equal(2);
    expect(held.firstTimeNs()).to.equal(10n * S);
    expect(held.has(20n * S)).to.equal(true);
    expect(held.has(30n * S)).to.equal(false);
    const refs: JournalRefs = [];
    held.takeInto(refs);
    const out: unknown[] = [];
    unpackJournalRefs(refs, 0, refs.length / 2, out);
    expect(out).to.deep.equal([...row(7, 10n, 2), ...row(7, 20n, 3)]);
    expect(held.count).to.equal(0);
    expect(held.has(10n * S)).to.equal(false);
  });
});

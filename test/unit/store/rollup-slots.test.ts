import { expect } from "chai";
import { HOUR_NS, MINUTE_NS, planWindow } from "../../../daemon/store/rollup-slots.js";

const SECOND = 1_000_000_000n;

/** The plan as [from, to) pieces: raw ranges as they are, slot ranges expanded to their slots. */
function pieces(plan: ReturnType<typeof planWindow>): { from: bigint; to: bigint; slot: boolean }[] {
  const out = plan.raw.map((range) => ({ ...range, slot: false }));
  for (const range of plan.slots) {
    for (let slot = range.from; slot < range.to; slot += range.width) {
      expect(slot % range.width).to.equal(0n);
      out.push({ from: slot, to: slot + range.width, slot: true });
    }
  }
  return out.sort((a, b) => (a.from < b.from ? -1 : a.from > b.from ? 1 : 0));
}

describe("rollup window plan", () => {
  it("covers a window exactly once, with slots only where retention left them whole", () => {
    const base = 1_700_000_000n * SECOND;
    const offsets = [0n, 1n, 59n * SECOND, MINUTE_NS, MINUTE_NS + 1n, HOUR_NS - 1n, HOUR_NS, 3n * HOUR_NS + 7n];
    for (const loOffset of offsets) {
      for (const length of [1n, 30n * SECOND, MINUTE_NS, 2n * HOUR_NS, 26n * HOUR_NS + 123n]) {
        for (const slotsFromOffset of [0n, 5n * MINUTE_NS + 1n, 30n * HOUR_NS]) {
          const lo = base + loOffset;
          const hi = lo + length;
          const slotsFrom = base + slotsFromOffset;
          const parts = pieces(planWindow(lo, hi, slotsFrom));
          let at = lo;
          for (const part of parts) {
            expect(part.from, "no gap, no overlap").to.equal(at);
            if (part.slot) expect(part.from >= slotsFrom, "slot after slotsFrom").to.equal(true);
            at = part.to;
          }
          expect(at).to.equal(hi);
        }
      }
    }
  });

  it("reads a day from hours, a ragged end from minutes and only partial minutes raw", () => {
    const lo = 1_700_000_000n * SECOND + 1n; // 13:33:20 UTC and a nanosecond
    const plan = planWindow(lo, lo + 24n * HOUR_NS, 0n);
    const rawNs = plan.raw.reduce((sum, range) => sum + (range.to - range.from), 0n);
    expect(rawNs <= 2n * MINUTE_NS).to.equal(true);
    expect(plan.slots.map((range) => range.width)).to.deep.equal([MINUTE_NS, HOUR_NS, MINUTE_NS]);
    expect(planWindow(lo, lo, 0n)).to.deep.equal({ raw: [], slots: [] });
  });
});

import { expect } from "chai";
import { newestExemplars, rowExemplarsOf, rowExemplarsText } from "../../../daemon/store/rollup-exemplars.js";

describe("rollup rows' exemplars", () => {
  const base = 1_700_000_000_000_000_001n;

  it("stores each trace id with its point's time, exactly past a double's precision, and reads it back", () => {
    const exemplars = [
      { traceId: "a", timeNs: base + 2n },
      { traceId: "b", timeNs: base },
    ];
    const text = rowExemplarsText(exemplars);
    expect(text).to.equal(`[["a","${base + 2n}"],["b","${base}"]]`);
    expect(rowExemplarsOf(text, 0n)).to.deep.equal(exemplars);
    expect(rowExemplarsText([])).to.equal(null);
    expect(rowExemplarsOf(null, base)).to.deep.equal([]);
  });

  it("reads a row written with trace ids alone as at its newest point", () => {
    expect(rowExemplarsOf('["a","b"]', base)).to.deep.equal([
      { traceId: "a", timeNs: base },
      { traceId: "b", timeNs: base },
    ]);
  });

  it("keeps the three newest by time, a trace id once at its newest, ties in the order given", () => {
    const at = (traceId: string, seconds: bigint) => ({ traceId, timeNs: base + seconds });
    expect(
      newestExemplars([at("a", 1n), at("b", 5n), at("c", 5n), at("b", 3n), at("d", 4n), at("e", 2n)]),
    ).to.deep.equal([at("b", 5n), at("c", 5n), at("d", 4n)]);
  });
});

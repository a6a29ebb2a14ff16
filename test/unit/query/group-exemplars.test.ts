import { expect } from "chai";
import { GroupExemplars } from "../../../daemon/query/metrics/group-exemplars.js";

describe("GroupExemplars", () => {
  const ids = (exemplars: GroupExemplars, gid: number) => exemplars.of(gid).map((e) => e.traceId);

  it("keeps a group's three newest, newest first, then by series id, then in their order", () => {
    const exemplars = new GroupExemplars();
    exemplars.offer(0, "old", 100n, 1, 0);
    exemplars.offer(0, "s2", 300n, 2, 0);
    exemplars.offer(0, "s1b", 300n, 1, 1);
    exemplars.offer(0, "s1a", 300n, 1, 0);
    expect(exemplars.of(0)).to.deep.equal([
      { traceId: "s1a", timeNs: 300n },
      { traceId: "s1b", timeNs: 300n },
      { traceId: "s2", timeNs: 300n },
    ]);
  });

  it("keeps each group's own however many newer ones the others have", () => {
    const exemplars = new GroupExemplars();
    exemplars.offer(0, "quiet", 100n, 1, 0);
    for (let i = 0; i < 5000; i++) exemplars.offer(1, `busy${i}`, 200n + BigInt(i), 2 + i, 0);
    expect(ids(exemplars, 0)).to.deep.equal(["quiet"]);
    expect(ids(exemplars, 1)).to.deep.equal(["busy4999", "busy4998", "busy4997"]);
  });

  it("keeps a trace id once, at its newest place", () => {
    const exemplars = new GroupExemplars();
    exemplars.offer(0, "a", 100n, 1, 0);
    exemplars.offer(0, "b", 200n, 1, 0);
    exemplars.offer(0, "a", 300n, 1, 0);
    exemplars.offer(0, "b", 50n, 1, 0);
    exemplars.offer(0, "c", 150n, 1, 0);
    exemplars.offer(0, "d", 120n, 1, 0);
    expect(exemplars.of(0)).to.deep.equal([
      { traceId: "a", timeNs: 300n },
      { traceId: "b", timeNs: 200n },
      { traceId: "c", timeNs: 150n },
    ]);
  });

  it("wants rows that could still change a group's, and orders times beyond a double's precision", () => {
    const exemplars = new GroupExemplars();
    const base = 1_700_000_000_000_000_000n;
    for (let i = 0; i < 3; i++) exemplars.offer(0, `t${i}`, base + BigInt(i), 5, 0);
    expect(ids(exemplars, 0)).to.deep.equal(["t2", "t1", "t0"]);
    expect(exemplars.wants(0, base - 1n, 1)).to.equal(false);
    expect(exemplars.wants(0, base, 6)).to.equal(false);
    expect(exemplars.wants(0, base, 5)).to.equal(true);
    expect(exemplars.wants(0, base + 1n, 9)).to.equal(true);
    expect(exemplars.wants(1, 0n, 1)).to.equal(true);
    exemplars.clear();
    expect(exemplars.of(0)).to.deep.equal([]);
  });
});

import { expect } from "chai";
import { type ByteRun, ByteRunMap, copyRun, hashRun } from "../../../daemon/otlp/byte-runs.js";

/** `bytes` at `offset` in a larger body. */
function runAt(bytes: Buffer, offset: number): ByteRun {
  const body = Buffer.alloc(offset + bytes.length + 5, 0xee);
  bytes.copy(body, offset);
  return {
    body,
    view: new DataView(body.buffer, body.byteOffset, body.byteLength),
    start: offset,
    end: offset + bytes.length,
  };
}

describe("byte runs as keys", () => {
  it("hashes equal bytes alike wherever they are in a body, and a change of any byte otherwise", () => {
    const bytes = Buffer.from("service.name=checkout;http.route=/api/items;k=v", "latin1");
    const hash = hashRun(runAt(bytes, 0));
    for (const offset of [1, 2, 3, 7]) expect(hashRun(runAt(bytes, offset))).to.equal(hash);
    for (let i = 0; i < bytes.length; i++) {
      const changed = Buffer.from(bytes);
      changed[i] = (changed[i] as number) ^ 1;
      expect(hashRun(runAt(changed, 3)), `byte ${i}`).to.not.equal(hash);
    }
    expect(hashRun(runAt(bytes.subarray(0, bytes.length - 1), 0))).to.not.equal(hash);
  });

  it("finds a value by bytes equal to those it was kept for, not by the hash alone", () => {
    const map = new ByteRunMap<string>();
    const kept = runAt(Buffer.from("abcdefgh"), 1);
    expect(map.set(copyRun(kept), hashRun(kept), "kept")).to.equal(true);
    // The kept copy is the map's own: the body it came from may change.
    kept.body.fill(0);
    const same = runAt(Buffer.from("abcdefgh"), 6);
    expect(map.get(same, hashRun(same))).to.equal("kept");
    // Other bytes under the same hash (a collision, forced here) are not the kept run.
    const other = runAt(Buffer.from("abcdefgX"), 0);
    expect(map.get(other, hashRun(same))).to.equal(undefined);
    const shorter = runAt(Buffer.from("abcdefg"), 0);
    expect(map.get(shorter, hashRun(same))).to.equal(undefined);
    expect(map.size).to.equal(1);
  });

  it("keeps at most four runs under one hash, and finds each of them", () => {
    const map = new ByteRunMap<number>();
    const runs = [0, 1, 2, 3, 4].map((i) => runAt(Buffer.from(`run ${i}`), 0));
    const kept = runs.map((run, i) => map.set(copyRun(run), 42, i));
    expect(kept).to.deep.equal([true, true, true, true, false]);
    expect(runs.map((run) => map.get(run, 42))).to.deep.equal([0, 1, 2, 3, undefined]);
    expect(map.size).to.equal(4);
  });
});

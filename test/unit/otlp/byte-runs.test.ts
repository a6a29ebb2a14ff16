import { expect } from "chai";
import { type ByteRun, ByteRunMap, hashRun } from "../../../daemon/otlp/byte-runs.js";
import { WireReader } from "../../../daemon/otlp/protobuf-wire.js";

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

  it("offers a run of a body that starts inside a larger buffer with the body's own offsets", () => {
    const bytes = Buffer.from("a run of attribute bytes, not word-aligned", "latin1");
    // A body that is a slice of a larger buffer, as a pooled or received one may be.
    const larger = Buffer.alloc(200, 0xab);
    bytes.copy(larger, 37 + 11);
    const body = larger.subarray(37, 37 + 11 + bytes.length + 9);
    expect(body.byteOffset).to.equal(37);
    const run = new WireReader(body).run(11, 11 + bytes.length);
    expect(run.body.toString("latin1", run.start, run.end)).to.equal(bytes.toString("latin1"));
    expect(hashRun(run)).to.equal(hashRun(runAt(bytes, 0)));
    const map = new ByteRunMap<string>();
    map.set(runAt(bytes, 2), hashRun(runAt(bytes, 2)), "kept");
    expect(map.get(run, hashRun(run))).to.equal("kept");
  });

  it("finds a value by bytes equal to those it was kept for, not by the hash alone", () => {
    const map = new ByteRunMap<string>();
    const kept = runAt(Buffer.from("abcdefgh"), 1);
    expect(map.set(kept, hashRun(kept), "kept")).to.equal(true);
    // The map keeps a copy: the body it came from may change.
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

  it("keeps runs past one slab's worth, and a run longer than a slab, and finds each", () => {
    const map = new ByteRunMap<number>();
    const runs = Array.from({ length: 300 }, (_, i) => runAt(Buffer.from(`${i}:`.padEnd(400, "x")), i % 5));
    runs.push(runAt(Buffer.alloc(70 * 1024, 7), 3));
    runs.forEach((run, i) => {
      expect(map.set(run, hashRun(run), i)).to.equal(true);
    });
    expect(runs.map((run) => map.get(run, hashRun(run)))).to.deep.equal(runs.map((_, i) => i));
  });

  it("keeps at most four runs under one hash, and finds each of them", () => {
    const map = new ByteRunMap<number>();
    const runs = [0, 1, 2, 3, 4].map((i) => runAt(Buffer.from(`run ${i}`), 0));
    const kept = runs.map((run, i) => map.set(run, 42, i));
    expect(kept).to.deep.equal([true, true, true, true, false]);
    expect(runs.map((run) => map.get(run, 42))).to.deep.equal([0, 1, 2, 3, undefined]);
    expect(map.size).to.equal(4);
  });
});

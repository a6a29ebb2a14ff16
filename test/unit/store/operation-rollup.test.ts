import { expect } from "chai";
import {
  decodeSlowest,
  emptyOperationRollup,
  encodeRollup,
  encodeSlowest,
  mergeStored,
  type SlowSpan,
} from "../../../daemon/store/operation-rollup.js";

describe("operation rollups' stored form", () => {
  const slowest: SlowSpan[] = [
    [5_000_000_000_123, "00f067aa0ba902b7", "4bf92f3577b34da6a3ce929d0e0e4736"],
    [300, "ffffffffffffffff", "00000000000000000000000000000001"],
    [0, "0000000000000001", "ffffffffffffffffffffffffffffffff"],
  ];

  it("keeps the slowest spans as a varint duration and each id's bytes after its length", () => {
    const stored = encodeSlowest(slowest.slice(1, 2));
    // zigzag(300) = 600: 0xd8 0x04; 8 bytes of span id; 16 of trace id.
    expect([...stored]).to.deep.equal([
      0xd8,
      0x04,
      8,
      ...Buffer.from("ffffffffffffffff", "hex"),
      16,
      ...Buffer.from("00000000000000000000000000000001", "hex"),
    ]);
    expect(decodeSlowest(stored)).to.deep.equal(slowest.slice(1, 2));
    expect(decodeSlowest(encodeSlowest(slowest))).to.deep.equal(slowest);
    expect(decodeSlowest(encodeSlowest([]))).to.deep.equal([]);
  });

  it("refuses a slowest list cut short instead of reading past it", () => {
    const stored = encodeSlowest(slowest);
    expect(() => decodeSlowest(stored.subarray(0, stored.length - 1))).to.throw(RangeError);
  });

  it("gives back through mergeStored what encodeRollup stored", () => {
    const rollup = {
      spans: 3,
      newestNs: 1_700_000_000_000_000_000n,
      buckets: new Map([
        [0, 1],
        [900, 2],
      ]),
      slowest,
    };
    const stored = encodeRollup(rollup);
    expect(stored.max_ns).to.equal(slowest[0]?.[0]);
    const merged = emptyOperationRollup();
    mergeStored(merged, stored);
    expect(merged).to.deep.equal(rollup);
  });
});

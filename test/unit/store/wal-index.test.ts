import { closeSync, openSync, readSync } from "node:fs";
import { expect } from "chai";
import { WAL_INDEX_HEADER_BYTES, WalIndexReader, walIndexCounts } from "../../../daemon/store/wal-index.js";
import { hexId, traceRequest } from "../../helpers/otlp-builders.js";
import { testStore } from "../../helpers/store.js";

const T0 = 1_700_000_000_000_000_000n;

/** The header's bytes, through a descriptor kept open as the reader keeps its own (wal-index.ts). */
const shm = new Map<string, number>();
function header(path: string): Buffer {
  let fd = shm.get(path);
  if (fd === undefined) {
    fd = openSync(`${path}-shm`, "r");
    shm.set(path, fd);
  }
  const bytes = Buffer.alloc(WAL_INDEX_HEADER_BYTES);
  readSync(fd, bytes, 0, WAL_INDEX_HEADER_BYTES, 0);
  return bytes;
}

describe("the write-ahead log's counts from the WAL-index header", () => {
  after(() => {
    for (const fd of shm.values()) closeSync(fd);
  });

  it("reads the frames in the log and those checkpointed as SQLite counts them", () => {
    const store = testStore();
    try {
      store.db.pragma("wal_autocheckpoint = 0");
      for (let n = 0; n < 20; n++) {
        store.writeTraces(
          traceRequest("wal-index", [
            {
              traceId: hexId(n, 16),
              spanId: hexId(n, 8),
              startNs: T0 + BigInt(n),
              attributes: { text: "x".repeat(3000) },
            },
          ]),
        );
      }
      const before = walIndexCounts(header(store.path));
      const [result] = store.db.pragma("wal_checkpoint(PASSIVE)") as { log: number; checkpointed: number }[];
      expect(before).to.deep.equal({ frames: Number(result?.log), backfilled: 0 });
      expect(before?.frames).to.be.greaterThan(20);
      const after = { frames: Number(result?.log), backfilled: Number(result?.checkpointed) };
      expect(walIndexCounts(header(store.path))).to.deep.equal(after);
      expect(new WalIndexReader(store.path).counts()).to.deep.equal(after);
    } finally {
      store.close();
    }
  });

  it("trusts no header read while it was being written, of another version, or too short", () => {
    const store = testStore();
    try {
      store.writeTraces(traceRequest("wal-index", [{ traceId: hexId(1, 16), spanId: hexId(1, 8), startNs: T0 }]));
      const read = header(store.path);
      expect(walIndexCounts(read)).to.not.equal(null);
      const torn = Buffer.from(read);
      torn.writeUInt32LE(torn.readUInt32LE(16) + 1, 16); // the first copy's mxFrame, the second not yet
      expect(walIndexCounts(torn)).to.equal(null);
      const other = Buffer.from(read);
      other.writeUInt32LE(3007001, 0);
      other.writeUInt32LE(3007001, 48);
      expect(walIndexCounts(other)).to.equal(null);
      expect(walIndexCounts(read.subarray(0, 100))).to.equal(null);
    } finally {
      store.close();
    }
  });
});

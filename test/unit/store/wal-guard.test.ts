import { statSync } from "node:fs";
import type Database from "better-sqlite3";
import { expect } from "chai";
import { openReadConnection } from "../../../daemon/store/connection.js";
import { WalGuard } from "../../../daemon/store/wal-guard.js";
import { hexId, traceRequest } from "../../helpers/otlp-builders.js";
import { testStore } from "../../helpers/store.js";

const MiB = 1024 * 1024;
const T0 = 1_700_000_000_000_000_000n;

function batch(n: number) {
  return traceRequest(
    "wal",
    Array.from({ length: 50 }, (_, i) => ({
      traceId: hexId(n, 16),
      spanId: hexId(n * 50 + i, 8),
      startNs: T0 + BigInt(n * 50 + i),
      attributes: { payload: "p".repeat(300), n: n * 50 + i },
    })),
  );
}

/** Opens a read transaction: the reader's snapshot is the newest commit until it ends. */
function beginRead(reader: Database.Database): void {
  reader.exec("BEGIN");
  reader.prepare("SELECT count(*) FROM spans").get();
}

describe("write-ahead log guard", () => {
  // A 4 MiB cap: checkpoints every 128 pages (512 KiB), log limit 1 MiB. (That overlapping
  // readers starve the automatic checkpoints needs real concurrency to show: bench/soak.ts.)
  it("does nothing while the log is within its limit", () => {
    const store = testStore(4 * MiB);
    try {
      store.writeTraces(batch(0));
      expect(new WalGuard(store.db, store.path).afterCommit(0)).to.equal(false);
    } finally {
      store.close();
    }
  });

  it("gives up quickly, without an error, while a reader holds an old snapshot", () => {
    const store = testStore(4 * MiB);
    const reader = openReadConnection(store.path);
    try {
      beginRead(reader);
      for (let n = 0; n < 80; n++) store.writeTraces(batch(n));
      const guard = new WalGuard(store.db, store.path);
      const started = Date.now();
      expect(guard.afterCommit(0)).to.equal(false);
      expect(Date.now() - started).to.be.lessThan(2_000);
      // The writer's own wait is restored for ordinary writes.
      expect(Number(store.db.pragma("busy_timeout", { simple: true }))).to.equal(5000);
      reader.exec("COMMIT");
      expect(guard.afterCommit(500)).to.equal(false); // within a second of the last attempt
      expect(guard.afterCommit(1_000)).to.equal(true);
      // The next commit writes the log from its start, and the file is cut back to the limit.
      store.writeTraces(batch(1000));
      expect(statSync(`${store.path}-wal`).size).to.be.at.most(1 * MiB);
    } finally {
      reader.close();
      store.close();
    }
  });
});

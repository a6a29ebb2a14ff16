import { expect } from "chai";
import { walLimits } from "../../../daemon/store/connection.js";
import { describeWriteFailure, isTransientWriteFailure } from "../../../daemon/store/write-failure.js";
import { hexId, traceRequest } from "../../helpers/otlp-builders.js";
import { testStore } from "../../helpers/store.js";

const T0 = 1_700_000_000_000_000_000n;

/** A batch of 50 spans of service `service`, ids unique per `batch`. */
function batch(service: string, n: number) {
  return traceRequest(
    service,
    Array.from({ length: 50 }, (_, i) => ({
      traceId: hexId(n, 16),
      spanId: hexId(n * 50 + i, 8),
      startNs: T0 + BigInt(n * 50 + i),
      attributes: { payload: "p".repeat(300), [`key.${n}`]: `value-${n}-${i}` },
    })),
  );
}

describe("writes when the database cannot grow (SQLite page limit)", () => {
  it("fails with SQLITE_FULL, keeps the file intact and consistent, and writes again once there is room", () => {
    const store = testStore();
    try {
      store.writeTraces(batch("before", 0));
      const pages = Number(store.db.pragma("page_count", { simple: true }));
      store.db.pragma(`max_page_count = ${pages + 40}`);
      let n = 1;
      let failure: unknown = null;
      for (; n < 500 && failure === null; n++) {
        try {
          store.writeTraces(batch(`service-${n}`, n));
        } catch (error) {
          failure = error;
        }
      }
      expect((failure as { code?: string })?.code, "the writes never hit the limit").to.equal("SQLITE_FULL");
      expect(describeWriteFailure(failure, store.path)).to.match(/^no space left for the database .*t\.sqlite/);
      const written = n - 2; // batches committed after the first
      expect(store.db.pragma("integrity_check", { simple: true })).to.equal("ok");
      // Nothing of the failed batch is stored, and the counters equal the rows.
      const spans = store.db.prepare("SELECT count(*) FROM spans").pluck().get();
      expect(spans).to.equal(BigInt(50 * (written + 1)));
      expect(store.counters()).to.include({ spans: spans as bigint, traces: BigInt(written + 1) });
      const services = store.db.prepare("SELECT count(*) FROM services").pluck().get();
      expect(store.counters().services).to.equal(services);

      // Space returns: the failed batch and a new service are written, with fresh dictionary ids.
      store.db.pragma("max_page_count = 1073741823");
      expect(store.writeTraces(batch(`service-${n - 1}`, n - 1))).to.equal(50);
      expect(store.writeTraces(batch("after", 9999))).to.equal(50);
      const names = store.db
        .prepare(
          "SELECT DISTINCT sv.name FROM spans s JOIN services sv ON sv.id = s.service_id JOIN traces t ON t.trace_key = s.trace_key WHERE t.trace_id = unhex(?) OR t.trace_id = unhex(?)",
        )
        .pluck()
        .all(hexId(n - 1, 16), hexId(9999, 16));
      expect(names.sort()).to.deep.equal(["after", `service-${n - 1}`].sort());
      expect(store.db.pragma("integrity_check", { simple: true })).to.equal("ok");
    } finally {
      store.close();
    }
  });
});

describe("describeWriteFailure", () => {
  const failure = (code: string, message = "boom") => Object.assign(new Error(message), { code });

  it("names the database and what to do when the disk is full", () => {
    const text = describeWriteFailure(failure("SQLITE_FULL", "database or disk is full"), "/data/t.sqlite");
    expect(text).to.contain("no space left for the database /data/t.sqlite");
    expect(text).to.contain("nothing from this request was stored");
    expect(text).to.contain("Free disk space");
  });

  it("words I/O, read-only and damaged-file errors with their SQLite code", () => {
    expect(describeWriteFailure(failure("SQLITE_IOERR_WRITE"), "/d.sqlite")).to.match(
      /^I\/O error writing .*SQLITE_IOERR_WRITE/,
    );
    expect(describeWriteFailure(failure("SQLITE_READONLY_DBMOVED"), "/d.sqlite")).to.match(/cannot be written/);
    expect(describeWriteFailure(failure("SQLITE_CORRUPT"), "/d.sqlite")).to.match(/is damaged/);
  });

  it("keeps any other message as it is", () => {
    expect(describeWriteFailure(failure("SQLITE_CONSTRAINT", "UNIQUE constraint failed"), "/d")).to.equal(
      "UNIQUE constraint failed",
    );
    expect(describeWriteFailure("plain", "/d")).to.equal("plain");
  });
});

describe("walLimits", () => {
  it("gives the write-ahead log an eighth of the size cap, between 256 KiB and 32 MiB", () => {
    expect(walLimits(4 * 1024 * 1024, 4096)).to.deep.equal({ autocheckpointPages: 128, journalSizeLimit: 1048576 });
    expect(walLimits(1024 ** 3, 4096)).to.deep.equal({ autocheckpointPages: 8192, journalSizeLimit: 67108864 });
    expect(walLimits(64 * 1024, 4096).autocheckpointPages).to.equal(64);
    expect(walLimits(0, 4096).autocheckpointPages).to.equal(8192);
    // The same sizes in pages of 16 KiB.
    expect(walLimits(1024 ** 3, 16384)).to.deep.equal({ autocheckpointPages: 2048, journalSizeLimit: 67108864 });
    expect(walLimits(4 * 1024 * 1024, 16384).autocheckpointPages).to.equal(32);
    expect(walLimits(64 * 1024, 16384).autocheckpointPages).to.equal(16);
  });
});

describe("transient write failures", () => {
  it("are the ones another connection causes (busy, locked), not a full disk or damage", () => {
    for (const code of ["SQLITE_BUSY", "SQLITE_BUSY_SNAPSHOT", "SQLITE_LOCKED", "SQLITE_LOCKED_SHAREDCACHE"]) {
      expect(isTransientWriteFailure(Object.assign(new Error("database is locked"), { code })), code).to.equal(true);
    }
    for (const code of ["SQLITE_FULL", "SQLITE_IOERR_WRITE", "SQLITE_CORRUPT", "SQLITE_READONLY"]) {
      expect(isTransientWriteFailure(Object.assign(new Error("no"), { code })), code).to.equal(false);
    }
    expect(isTransientWriteFailure(new Error("no code"))).to.equal(false);
  });
});

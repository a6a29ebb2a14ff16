import { expect } from "chai";
import { forEachHashedRow, valueHash } from "../../../daemon/store/hashed-postings.js";
import { PostingPacker } from "../../../daemon/store/posting-packer.js";
import { encodePostingRows } from "../../../daemon/store/posting-rows.js";
import { POSTING_BUCKET_ROWS } from "../../../daemon/store/postings.js";
import { TelemetryWriter } from "../../../daemon/store/telemetry-writer.js";
import { hexId, logsRequest, traceRequest } from "../../helpers/otlp-builders.js";
import { type TestStore, testStore } from "../../helpers/store.js";

const T0 = 1_700_000_000_000_000_000n;

/** Writes `count` spans, one transaction, each with a request id of its own and shared route and tag. */
function writeSpans(
  store: TestStore,
  first: number,
  count: number,
  extra: (n: number) => Record<string, string> = () => ({}),
) {
  store.writeTraces(
    traceRequest(
      "api",
      Array.from({ length: count }, (_, i) => ({
        traceId: hexId(first + i, 16),
        spanId: hexId(first + i, 8),
        startNs: T0 + BigInt(first + i),
        attributes: { "request.id": `req-${first + i}`, route: `/r${(first + i) % 3}`, tag: "x", ...extra(first + i) },
      })),
    ),
  );
}

/** Moves the next span row id to the start of the next posting bucket, as thousands of spans would. */
function fillBucket(store: TestStore): void {
  const seq = Number(store.db.prepare("SELECT seq FROM sqlite_sequence WHERE name = 'spans'").pluck().get());
  const next = (Math.floor(seq / POSTING_BUCKET_ROWS) + 1) * POSTING_BUCKET_ROWS;
  store.db.prepare("UPDATE sqlite_sequence SET seq = ? WHERE name = 'spans'").run(next - 1);
}

function keysWithEntries(store: TestStore, bucket: number): string[] {
  return store.db
    .prepare(
      "SELECT DISTINCT k.key FROM span_postings p JOIN attr_keys k ON k.id = p.key_id WHERE p.bucket = ? ORDER BY 1",
    )
    .pluck()
    .all(bucket) as string[];
}

/** Every (row id, hash) the hashed postings of `key` in `bucket` hold, by row id. */
function hashedEntries(store: TestStore, bucket: number, key: string): [number, number][] {
  const blobs = store.db
    .prepare(
      `SELECT entries FROM span_hashed_postings h JOIN attr_keys k ON k.id = h.key_id
       WHERE h.bucket = ? AND k.key = ? ORDER BY first_hash`,
    )
    .pluck()
    .all(bucket, key) as Buffer[];
  const found: [number, number][] = [];
  for (const blob of blobs) {
    let i = 0;
    forEachHashedRow(blob, bucket, (id) => {
      found.push([id, blob.readUInt32BE(i * 6)]);
      i++;
    });
  }
  return found.sort((a, b) => a[0] - b[0]);
}

function packAll(store: TestStore): number {
  const packer = new PostingPacker(store.db);
  let packed = 0;
  while (packer.packNext()) packed++;
  return packed;
}

describe("posting packer", () => {
  let store: TestStore;
  beforeEach(() => {
    store = testStore();
  });
  afterEach(() => store.close());

  it("hashes a full bucket's postings of keys whose values do not repeat, and leaves the rest as they were", () => {
    // 160 spans in 4 commits, one request id with a lone surrogate (SQLite keeps its own bytes
    // for it), and a key on 10 of them only: too few rows to tell whether its values repeat.
    const lone = "lone-\ud800";
    const extra = (n: number): Record<string, string> =>
      n === 5 ? { "request.id": lone, rare: `r${n}` } : n < 10 ? { rare: `r${n}` } : {};
    for (let t = 0; t < 4; t++) writeSpans(store, t * 40, 40, extra);
    fillBucket(store);
    writeSpans(store, 1000, 130);
    const routeEntries = store.db
      .prepare(
        "SELECT * FROM span_postings p JOIN attr_keys k ON k.id = p.key_id WHERE k.key <> 'request.id' ORDER BY 1, 2, 3, 4",
      )
      .raw()
      .all();
    expect(packAll(store)).to.equal(1);
    expect(keysWithEntries(store, 0)).to.deep.equal(["rare", "route", "tag"]);
    expect(keysWithEntries(store, 1)).to.deep.equal(["request.id", "route", "tag"]);
    expect(
      store.db
        .prepare(
          "SELECT * FROM span_postings p JOIN attr_keys k ON k.id = p.key_id WHERE k.key <> 'request.id' ORDER BY 1, 2, 3, 4",
        )
        .raw()
        .all(),
    ).to.deep.equal(routeEntries);
    // Each of bucket 0's spans once, under the hash of its own request id.
    const ids = store.db
      .prepare("SELECT id FROM spans WHERE id < ? ORDER BY id")
      .pluck()
      .all(POSTING_BUCKET_ROWS) as bigint[];
    expect(ids).to.have.length(160);
    expect(hashedEntries(store, 0, "request.id")).to.deep.equal(
      ids.map((id, n) => [Number(id), valueHash(n === 5 ? lone : `req-${n}`)]),
    );
    expect(hashedEntries(store, 1, "request.id")).to.deep.equal([]);
    expect(store.db.prepare("SELECT value FROM meta WHERE key = 'span_postings_packed_below'").pluck().get()).to.equal(
      "1",
    );
    // Nothing more until bucket 1 is full; then bucket 1 alone.
    expect(packAll(store)).to.equal(0);
    fillBucket(store);
    writeSpans(store, 2000, 1);
    expect(packAll(store)).to.equal(1);
    expect(keysWithEntries(store, 1)).to.deep.equal(["route", "tag"]);
    expect(hashedEntries(store, 1, "request.id").map(([, hash]) => hash)).to.have.members(
      Array.from({ length: 130 }, (_, i) => valueHash(`req-${1000 + i}`)),
    );
  });

  it("has the writer write a key hashed once its values did not repeat, merges those blobs, and goes back to entries when they repeat", () => {
    const packer = new PostingPacker(store.db, store.writer.hashedKeys);
    const pack = () => {
      while (packer.packNext()) {}
    };
    const keyId = Number(
      store.db
        .prepare("INSERT INTO attr_keys (key) VALUES ('request.id') ON CONFLICT DO NOTHING RETURNING id")
        .pluck()
        .get(),
    );
    const pendingBlobs = (bucket: number) =>
      store.db
        .prepare("SELECT first_row, length(entries) / 6 FROM span_pending_hashes WHERE bucket = ? ORDER BY 1")
        .raw()
        .safeIntegers(false)
        .all(bucket) as [number, number][];
    writeSpans(store, 0, 130);
    fillBucket(store);
    writeSpans(store, 1000, 2);
    pack();
    expect([...store.writer.hashedKeys.of("span_postings")]).to.deep.equal([keyId]);
    // From now on request ids go to a pending blob per commit; the first two spans keep their entries.
    writeSpans(store, 2000, 3);
    writeSpans(store, 3000, 4);
    expect(keysWithEntries(store, 1)).to.deep.equal(["request.id", "route", "tag"]);
    const first = POSTING_BUCKET_ROWS + 2;
    expect(pendingBlobs(1)).to.deep.equal([
      [first, 3],
      [first + 3, 4],
    ]);
    // A new writer (a restart) knows the key from the store.
    expect([...new TelemetryWriter(store.db, 0n).hashedKeys.of("span_postings")]).to.deep.equal([keyId]);
    fillBucket(store);
    writeSpans(store, 4000, 1);
    pack();
    expect(pendingBlobs(1)).to.deep.equal([]);
    // The pending rows merged into bucket 1's hashed postings; the two earlier entries stay.
    expect(hashedEntries(store, 1, "request.id").map(([, hash]) => hash)).to.have.members(
      [2000, 2001, 2002, 3000, 3001, 3002, 3003].map((n) => valueHash(`req-${n}`)),
    );
    expect(
      store.db.prepare("SELECT value FROM span_postings WHERE bucket = 1 AND key_id = ? ORDER BY 1").pluck().all(keyId),
    ).to.deep.equal(["req-1000", "req-1001"]);
    // Bucket 2: request ids that repeat, written hashed (the writer cannot know yet).
    writeSpans(store, 5000, 5, () => ({ "request.id": "same" }));
    writeSpans(store, 6000, 5, () => ({ "request.id": "same" }));
    expect(pendingBlobs(2).map(([, n]) => n)).to.deep.equal([1, 5, 5]);
    fillBucket(store);
    writeSpans(store, 7000, 1);
    pack();
    expect([...store.writer.hashedKeys.of("span_postings")]).to.deep.equal([]);
    expect([...new TelemetryWriter(store.db, 0n).hashedKeys.of("span_postings")]).to.deep.equal([]);
    writeSpans(store, 8000, 2);
    // Only the span written before the packer looked at bucket 2 is in a pending blob.
    expect(pendingBlobs(3)).to.deep.equal([[3 * POSTING_BUCKET_ROWS, 1]]);
    expect(keysWithEntries(store, 3)).to.deep.equal(["request.id", "route", "tag"]);
  });

  it("lists every key it ever hashed in meta, and lists them from the blobs for a store that has none", () => {
    writeSpans(store, 0, 130);
    fillBucket(store);
    writeSpans(store, 1000, 1);
    packAll(store);
    const keyId = store.db.prepare("SELECT id FROM attr_keys WHERE key = 'request.id'").pluck().get();
    const listed = () =>
      store.db.prepare("SELECT value FROM meta WHERE key = 'span_postings_ever_hashed'").pluck().get();
    expect(listed()).to.equal(`[${keyId}]`);
    store.db.prepare("DELETE FROM meta WHERE key = 'span_postings_ever_hashed'").run();
    new PostingPacker(store.db);
    expect(listed()).to.equal(`[${keyId}]`);
    expect(store.db.prepare("SELECT value FROM meta WHERE key = 'log_postings_ever_hashed'").pluck().get()).to.equal(
      undefined,
    );
  });

  it("never packs the bucket rows are still being written to", () => {
    writeSpans(store, 0, 50);
    const before = store.db.prepare("SELECT count(*) FROM span_postings").pluck().get();
    expect(packAll(store)).to.equal(0);
    expect(store.db.prepare("SELECT count(*) FROM span_postings").pluck().get()).to.equal(before);
    expect(store.db.prepare("SELECT count(*) FROM span_hashed_postings").pluck().get()).to.equal(0n);
  });

  it("hashes a key whose distinct values are at least 4 in 5 of its rows, not one with fewer", () => {
    // 200 spans in two commits: `most` has 170 distinct values, `fewer` 150, repeated across
    // the commits (an entry each).
    const most = (n: number) => `m${n < 170 ? n : n - 170}`;
    const fewer = (n: number) => `f${n % 150}`;
    writeSpans(store, 0, 100, (n) => ({ most: most(n), fewer: fewer(n) }));
    writeSpans(store, 100, 100, (n) => ({ most: most(n), fewer: fewer(n) }));
    fillBucket(store);
    writeSpans(store, 1000, 1);
    packAll(store);
    expect(keysWithEntries(store, 0)).to.deep.equal(["fewer", "route", "tag"]);
    expect(hashedEntries(store, 0, "most").map(([, hash]) => hash)).to.deep.equal(
      Array.from({ length: 200 }, (_, n) => valueHash(most(n))),
    );
  });

  it("leaves a key an entry of which lists rows of the next bucket, as an older store's may", () => {
    writeSpans(store, 0, 130);
    const keyId = store.db.prepare("SELECT id FROM attr_keys WHERE key = 'request.id'").pluck().get();
    // An entry written before entries were cut at bucket ends: rows 5 and 8,200.
    store.db
      .prepare("INSERT INTO span_postings VALUES (0, ?, 'straddling', 5, 8200, ?)")
      .run(keyId, encodePostingRows([5, 8200]));
    fillBucket(store);
    writeSpans(store, 100, 1);
    packAll(store);
    expect(keysWithEntries(store, 0)).to.deep.equal(["request.id", "route", "tag"]);
    expect(hashedEntries(store, 0, "request.id")).to.deep.equal([]);
  });

  it("packs log records' postings too, and starts past buckets retention emptied", () => {
    const logs = (from: number, count: number) =>
      store.writeLogs(
        logsRequest(
          "api",
          Array.from({ length: count }, (_, i) => ({
            timeNs: T0 + BigInt(from + i),
            body: `line ${from + i}`,
            attributes: { "request.id": `l-${from + i}` },
          })),
        ),
      );
    logs(0, 5);
    store.db.prepare("UPDATE sqlite_sequence SET seq = ? WHERE name = 'logs'").run(3 * POSTING_BUCKET_ROWS - 1);
    logs(1000, 130);
    store.db.prepare("UPDATE sqlite_sequence SET seq = ? WHERE name = 'logs'").run(4 * POSTING_BUCKET_ROWS - 1);
    logs(5000, 1);
    store.db.prepare("DELETE FROM logs WHERE id < ?").run(POSTING_BUCKET_ROWS);
    // Bucket 0 lost its rows: the packer starts at bucket 3, the lowest live row's.
    expect(packAll(store)).to.equal(1);
    const hashedBuckets = store.db.prepare("SELECT DISTINCT bucket FROM log_hashed_postings").pluck().all();
    expect(hashedBuckets).to.deep.equal([3n]);
    expect(store.db.prepare("SELECT value FROM meta WHERE key = 'log_postings_packed_below'").pluck().get()).to.equal(
      "4",
    );
  });
});

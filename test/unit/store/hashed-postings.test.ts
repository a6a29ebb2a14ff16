import Database from "better-sqlite3";
import { expect } from "chai";
import { fnv1a32 } from "../../../daemon/store/fnv.js";
import {
  HASHED_CHUNK_ENTRIES,
  hashedChunks,
  hashedEntry,
  hashedRows,
  registerHashedPostingFunctions,
  valueHash,
} from "../../../daemon/store/hashed-postings.js";
import { POSTING_BUCKET_ROWS } from "../../../daemon/store/postings.js";

describe("hashed postings", () => {
  it("hash a value's UTF-8 text with 32-bit FNV-1a", () => {
    // The published FNV-1a test vectors.
    expect(fnv1a32(Buffer.from(""))).to.equal(0x811c9dc5);
    expect(fnv1a32(Buffer.from("a"))).to.equal(0xe40c292c);
    expect(fnv1a32(Buffer.from("foobar"))).to.equal(0xbf9cf968);
    expect(valueHash("foobar")).to.equal(0xbf9cf968);
    expect(valueHash("é")).to.equal(fnv1a32(Buffer.from([0xc3, 0xa9])));
    // Encoded as it hashes: the bytes SQLite keeps for the text (what the packer hashes), lone
    // surrogates and all (three bytes each, where Buffer.from writes U+FFFD).
    const db = new Database(":memory:");
    try {
      const stored = db.prepare("SELECT CAST(? AS BLOB)").pluck();
      const texts = ["", "req-1", "é€😀", "a\ud800b", "\udc00", "x\ud83d", "\u07ff\u0800\uffff", "Ā".repeat(3)];
      for (let code = 0; code < 0x11000; code += 7) {
        texts.push(`v${String.fromCodePoint(code)}${String.fromCharCode(code & 0xffff)}`);
      }
      for (const text of texts) {
        expect(valueHash(text), JSON.stringify(text)).to.equal(fnv1a32(stored.get(text) as Buffer));
      }
      expect(valueHash("a\ud800b")).to.not.equal(fnv1a32(Buffer.from("a\ud800b")));
    } finally {
      db.close();
    }
  });

  it("cut a bucket's entries, sorted, into blobs named by their first hash, never parting one hash's entries", () => {
    // 300 entries: hashes 0..99 once each, hash 500 on 150 rows (across where a cut would fall), 600..649.
    const list: number[] = [];
    let place = 0;
    for (let h = 99; h >= 0; h--) list.push(hashedEntry(h, place++));
    for (let i = 0; i < 150; i++) list.push(hashedEntry(500, place++));
    for (let h = 600; h < 650; h++) list.push(hashedEntry(h, place++));
    const entries = Float64Array.from(list);
    const chunks = hashedChunks(entries);
    expect(chunks.map((c) => c.firstHash)).to.deep.equal([0, 600]);
    expect(chunks.map((c) => c.entries.length / 6)).to.deep.equal([250, 50]);
    expect(HASHED_CHUNK_ENTRIES).to.be.lessThan(250);
    const first = chunks[0]?.entries as Buffer;
    const hashes = Array.from({ length: 250 }, (_, i) => first.readUInt32BE(i * 6));
    expect(hashes).to.deep.equal([...hashes].sort((a, b) => a - b));
    expect(hashedRows(first, 2, 500)).to.deep.equal(
      Array.from({ length: 150 }, (_, i) => 2 * POSTING_BUCKET_ROWS + 100 + i),
    );
    expect(hashedRows(first, 2, 7)).to.deep.equal([2 * POSTING_BUCKET_ROWS + 92]);
    expect(hashedRows(first, 2, 501)).to.deep.equal([]);
    expect(hashedRows(chunks[1]?.entries as Buffer, 0, 649)).to.deep.equal([299]);
    // A full cut: 128 entries of distinct hashes, then the rest.
    const many = Float64Array.from({ length: 300 }, (_, i) => hashedEntry(0xffffffff - i, i));
    expect(hashedChunks(many).map((c) => c.entries.length / 6)).to.deep.equal([128, 128, 44]);
    expect(hashedRows(hashedChunks(many)[2]?.entries as Buffer, 0, 0xffffffff)).to.deep.equal([0]);
    expect(() => hashedEntry(1, POSTING_BUCKET_ROWS)).to.throw(RangeError);
  });

  it("answer a hash's rows, every row, and the rows in a range from SQL", () => {
    const db = new Database(":memory:");
    try {
      registerHashedPostingFunctions(db);
      const [chunk] = hashedChunks(Float64Array.from([hashedEntry(9, 5), hashedEntry(3, 7), hashedEntry(9, 1)]));
      const blob = chunk?.entries as Buffer;
      const one = (sql: string, ...params: unknown[]) =>
        db
          .prepare(sql)
          .pluck()
          .get(...params);
      expect(one("SELECT obs_hashed_rows(?, 1, 9)", blob)).to.equal(
        `[${POSTING_BUCKET_ROWS + 1},${POSTING_BUCKET_ROWS + 5}]`,
      );
      expect(one("SELECT obs_hashed_rows(NULL, 1, 9)")).to.equal("[]");
      expect(one("SELECT obs_hashed_all(?, 0)", blob)).to.equal("[7,1,5]");
      expect(one("SELECT obs_hashed_count(?, 0, 2, 7)", blob)).to.equal(2);
      expect(() => one("SELECT obs_hashed_all(x'0102', 0)")).to.throw(/partial entry/);
    } finally {
      db.close();
    }
  });
});

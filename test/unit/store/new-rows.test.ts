import Database from "better-sqlite3";
import { expect } from "chai";
import { NewRowInsert } from "../../../daemon/store/new-rows.js";

describe("new-row insert", () => {
  let db: Database.Database;
  let insert: NewRowInsert;
  const stored = () => db.prepare("SELECT id, a, b, note FROM t ORDER BY id").raw().all();

  beforeEach(() => {
    db = new Database(":memory:");
    db.exec(`CREATE TABLE t (id INTEGER PRIMARY KEY AUTOINCREMENT, a TEXT NOT NULL, b TEXT NOT NULL, note TEXT,
      UNIQUE (a, b))`);
    // Four rows per statement, so a run of ten rows takes chunks of 4, 4 and 2.
    insert = new NewRowInsert(db, "t", ["a", "b", "note"], 2, "(a, b)", 4);
  });
  afterEach(() => db.close());

  it("gives every new row its id, in input order, across chunks", () => {
    const rows = Array.from({ length: 10 }, (_, i) => [`k${i}`, "x", `n${i}`]).flat();
    expect(insert.run(rows)).to.deep.equal([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    expect(stored()).to.have.length(10);
    expect(stored()[6]).to.deep.equal([7, "k6", "x", "n6"]);
  });

  it("gives 0 to rows already stored and the right ids to the new rows between them", () => {
    insert.run(["k1", "x", "first", "k3", "x", "first"]);
    const ids = insert.run(["k0", "x", "", "k1", "x", "again", "k2", "x", "", "k3", "x", "again", "k4", "x", ""]);
    // A skipped row still uses up an id.
    expect(ids).to.deep.equal([3, 0, 5, 0, 7]);
    expect(stored()).to.deep.equal([
      [1, "k1", "x", "first"],
      [2, "k3", "x", "first"],
      [3, "k0", "x", ""],
      [5, "k2", "x", ""],
      [7, "k4", "x", ""],
    ]);
  });

  it("stores a row repeated in one run once, under its first occurrence", () => {
    expect(insert.run(["k1", "x", "a", "k1", "x", "b", "k2", "x", "c"])).to.deep.equal([1, 0, 3]);
    expect(insert.run(["k1", "x", "d", "k1", "x", "e"])).to.deep.equal([0, 0]);
  });

  it("matches rows on every key column, and on byte keys", () => {
    db.exec("CREATE TABLE h (id INTEGER PRIMARY KEY AUTOINCREMENT, hash BLOB NOT NULL UNIQUE, v TEXT)");
    const hashes = new NewRowInsert(db, "h", ["hash", "v"], 1, "(hash)", 4);
    const key = (n: number) => Buffer.from([n, n, n]);
    expect(hashes.run([key(1), "a"])).to.deep.equal([1]);
    expect(hashes.run([key(2), "b", key(1), "a", key(3), "c"])).to.deep.equal([2, 0, 4]);
    insert.run(["k1", "x", ""]);
    // Same first column, different second: a new row.
    expect(insert.run(["k1", "y", "", "k1", "x", ""])).to.deep.equal([2, 0]);
    expect(insert.run(["k1", "x", "", "k1", "y", "", "k2", "y", ""])).to.deep.equal([0, 0, 6]);
  });

  it("keeps ids growing after rows are deleted", () => {
    insert.run(["k1", "x", "", "k2", "x", ""]);
    db.exec("DELETE FROM t");
    expect(insert.run(["k1", "x", "", "k3", "x", ""])).to.deep.equal([3, 4]);
  });

  it("fails loudly on a row that breaks a constraint, and its transaction keeps none of the run", () => {
    insert.run(["k0", "x", "before"]);
    // The sixth row, in the second chunk, has no `b`.
    const rows = Array.from({ length: 10 }, (_, i) => [`k${i + 1}`, i === 5 ? null : "x", ""]).flat();
    expect(() => db.transaction(() => insert.run(rows))()).to.throw(/NOT NULL/);
    expect(stored()).to.deep.equal([[1, "k0", "x", "before"]]);
  });
});

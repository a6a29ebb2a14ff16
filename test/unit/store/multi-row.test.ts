import Database from "better-sqlite3";
import { expect } from "chai";
import { MultiRowStatement } from "../../../daemon/store/multi-row.js";

describe("multi-row statements", () => {
  let db: Database.Database;
  beforeEach(() => {
    db = new Database(":memory:");
    db.exec("CREATE TABLE t (k INTEGER PRIMARY KEY, v TEXT NOT NULL)");
  });
  afterEach(() => db.close());

  const stored = () => db.prepare("SELECT k, v FROM t ORDER BY k").raw().all();
  const rowsOf = (count: number) => Array.from({ length: count }, (_, k) => [k, `v${k}`]);

  it("writes every row, in chunks of at most its size and then of powers of two", () => {
    const insert = new MultiRowStatement(db, "t (k, v)", 2, "", 8, false);
    const chunks: number[] = [];
    let left = 29;
    while (left > 0) {
      const rows = insert.chunkRows(left);
      chunks.push(rows);
      left -= rows;
    }
    expect(chunks).to.deep.equal([8, 8, 8, 4, 1]);
    insert.run(rowsOf(29).flat());
    expect(stored()).to.deep.equal(rowsOf(29));
  });

  it("writes rows filled a chunk at a time, each item once and in order", () => {
    const insert = new MultiRowStatement(db, "t (k, v)", 2, "", 8, false);
    const filled: number[] = [];
    insert.runRows(rowsOf(29), (out, [k, v]) => {
      filled.push(k as number);
      out.push(k, v);
    });
    expect(filled).to.deep.equal(rowsOf(29).map(([k]) => k));
    expect(stored()).to.deep.equal(rowsOf(29));
    insert.runRows([], () => {
      throw new Error("no item, no fill");
    });
    expect(stored()).to.have.length(29);
  });

  it("fails a chunk that breaks a constraint, leaving the rows before it for the caller to undo", () => {
    const insert = new MultiRowStatement(db, "t (k, v)", 2, "", 8, false);
    const rows = rowsOf(12);
    (rows[10] as unknown[])[1] = null;
    expect(() => insert.runRows(rows, (out, row) => out.push(...row))).to.throw(/NOT NULL/);
    // FAIL, not ABORT: the rows before the failing one stay, its own chunk's included (the
    // writer's transaction rolls back whole).
    expect(stored()).to.deep.equal(rowsOf(10));
  });
});

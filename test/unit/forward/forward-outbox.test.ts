import Database from "better-sqlite3";
import { expect } from "chai";
import { OutboxReader } from "../../../daemon/forward/outbox-reader.js";
import { ForwardOutbox } from "../../../daemon/store/forward-outbox.js";
import { migrate } from "../../../daemon/store/schema.js";

function store(): Database.Database {
  const db = new Database(":memory:");
  db.defaultSafeIntegers(true);
  migrate(db, ":memory:");
  return db;
}

const body = (n: number) => new Uint8Array([n]);
/** Rows first..last of `records` each, delivered. */
const rows = (first: number, last: number, records: number): [number, number, 0 | 1][] =>
  Array.from({ length: last - first + 1 }, (_, i) => [first + i, records, 1]);

describe("forwarding outbox", () => {
  it("keeps each request until every destination has passed it, in commit order", () => {
    const db = store();
    const outbox = new ForwardOutbox(db, ["http/protobuf http://a", "grpc http://b"]);
    const reader = new OutboxReader(db);
    for (let i = 1; i <= 4; i++) outbox.append("traces", 0, 10, BigInt(i), body(i));
    expect(reader.after(0, 10, 1 << 20).map((e) => e.id)).to.deep.equal([1, 2, 3, 4]);
    expect(reader.after(2, 10, 1 << 20).map((e) => e.body[0])).to.deep.equal([3, 4]);
    outbox.applyProgress([{ destination: "http/protobuf http://a", throughId: 3, retried: 1, rows: rows(1, 3, 10) }]);
    expect(reader.after(0, 10, 1 << 20)).to.have.length(4);
    outbox.applyProgress([{ destination: "grpc http://b", throughId: 2, retried: 0, rows: rows(1, 2, 10) }]);
    expect(reader.after(0, 10, 1 << 20).map((e) => e.id)).to.deep.equal([3, 4]);
    expect(reader.destination("http/protobuf http://a")).to.deep.equal({
      throughId: 3,
      sent: 30,
      retried: 1,
      dropped: 0,
    });
    expect(reader.lag(2)).to.deep.equal({ records: 20, oldestNs: 3n });
  });

  it("never reuses an id, so a destination's position stays true after the outbox emptied", () => {
    const db = store();
    const outbox = new ForwardOutbox(db, ["d"]);
    outbox.append("logs", 1, 1, 1n, body(1));
    outbox.applyProgress([{ destination: "d", throughId: 1, retried: 0, rows: rows(1, 1, 1) }]);
    outbox.append("logs", 1, 1, 2n, body(2));
    expect(new OutboxReader(db).after(1, 10, 1 << 20).map((e) => e.id)).to.deep.equal([2]);
  });

  it("starts a new destination at the newest request, forgets and names a removed one, and keeps all while forwarding is off", () => {
    const db = store();
    const first = new ForwardOutbox(db, ["old"]);
    first.append("traces", 0, 5, 1n, body(1));
    new ForwardOutbox(db, ["old", "new"]);
    const reader = new OutboxReader(db);
    expect(reader.destination("new")?.throughId).to.equal(1);
    expect(reader.destination("old")?.throughId).to.equal(0);
    const notices: string[] = [];
    new ForwardOutbox(db, ["new"], (line) => notices.push(line));
    expect(reader.destination("old")).to.equal(undefined);
    expect(notices).to.deep.equal([
      "obsd: forwarding to old is no longer configured; 5 records it had not received are not sent",
    ]);
    expect(reader.after(0, 10, 1 << 20), "passed by every destination left").to.deep.equal([]);
    const again = new ForwardOutbox(db, ["new"]);
    again.append("traces", 0, 7, 2n, body(2));
    // A collector started without --forward (obs setup agentcli starts one) changes nothing.
    new ForwardOutbox(db, []);
    expect(reader.after(1, 10, 1 << 20).map((e) => e.records)).to.deep.equal([7]);
    expect(reader.destination("new")?.throughId).to.equal(1);
    expect(reader.lag(1)).to.deep.equal({ records: 7, oldestNs: 2n });
  });

  it("counts what retention deletes before a destination delivered it as that destination's dropped records", () => {
    const db = store();
    const outbox = new ForwardOutbox(db, ["slow", "fast"]);
    for (let i = 1; i <= 3; i++) outbox.append("metrics", 0, 100, BigInt(i * 10), body(i));
    outbox.applyProgress([{ destination: "fast", throughId: 3, retried: 0, rows: rows(1, 3, 100) }]);
    expect(outbox.oldest()).to.equal(10n);
    expect(outbox.trimOlder(25n, 1000)).to.equal(2);
    expect(outbox.trimOlder(25n, 1000), "the next is newer than the cutoff").to.equal(0);
    const reader = new OutboxReader(db);
    expect(reader.destination("slow")).to.include({ throughId: 2, dropped: 200 });
    expect(reader.destination("fast")).to.include({ throughId: 3, dropped: 0 });
    expect(outbox.trimOldest(1000)).to.equal(1);
    expect(reader.destination("slow")).to.include({ throughId: 3, dropped: 300 });
    expect(outbox.oldest()).to.equal(undefined);
  });

  it("does not count twice a round retention trimmed while it was being delivered", () => {
    const db = store();
    const outbox = new ForwardOutbox(db, ["d"]);
    for (let i = 1; i <= 3; i++) outbox.append("traces", 0, 10, BigInt(i), body(i));
    // The forwarder holds rows 1-3 in memory; retention trims rows 1-2 meanwhile.
    expect(outbox.trimOlder(3n, 1000)).to.equal(2);
    outbox.applyProgress([
      {
        destination: "d",
        throughId: 3,
        retried: 0,
        rows: [
          [1, 10, 1],
          [2, 10, 1],
          [3, 10, 0],
        ],
      },
    ]);
    expect(new OutboxReader(db).destination("d")).to.deep.equal({ throughId: 3, sent: 0, retried: 0, dropped: 30 });
  });

  it("reads at most the byte budget per round, but always one request", () => {
    const db = store();
    const outbox = new ForwardOutbox(db, ["d"]);
    for (let i = 1; i <= 3; i++) outbox.append("traces", 0, 1, 1n, new Uint8Array(1000));
    const reader = new OutboxReader(db);
    expect(reader.after(0, 10, 1500)).to.have.length(1);
    expect(reader.after(0, 10, 100)).to.have.length(1);
    expect(reader.after(0, 10, 2000)).to.have.length(2);
  });
});

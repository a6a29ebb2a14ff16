import { expect } from "chai";
import type { AuditWindow } from "../../../daemon/audit/audit-model.js";
import { readAuditFacts } from "../../../daemon/query/sqlite-audit-facts.js";
import { hexId, type SpanSpec, traceRequest } from "../../helpers/otlp-builders.js";
import { type TestStore, testStore } from "../../helpers/store.js";

const MINUTE = 60_000_000_000n;
const UNTIL = 1_700_000_040n * 1_000_000_000n; // a whole minute
const window: AuditWindow = {
  untilNs: UNTIL,
  currentFromNs: UNTIL - 15n * MINUTE,
  baselineFromNs: UNTIL - 30n * MINUTE,
  graceNs: MINUTE,
};

let nextId = 0;
/** `count` spans of one operation, one per trace, a millisecond apart from `startNs`. */
function spans(count: number, startNs: bigint, name: (i: number) => string): SpanSpec[] {
  return Array.from({ length: count }, (_, i) => ({
    traceId: hexId(nextId++, 16),
    spanId: hexId(nextId++, 8),
    name: name(i),
    startNs: startNs + BigInt(i) * 1_000_000n,
  }));
}

describe("audit facts from the store", () => {
  let store: TestStore;
  beforeEach(() => {
    store = testStore();
  });
  afterEach(() => store.close());

  it("count every service's spans, however many operations another service has", () => {
    // checkout in both windows; catalog with more operations than latency reads, now; catalog2
    // likewise in the baseline, beside billing.
    store.writeTraces(
      traceRequest(
        "checkout",
        spans(30, UNTIL - 20n * MINUTE, () => "POST /pay"),
      ),
    );
    store.writeTraces(
      traceRequest(
        "billing",
        spans(40, UNTIL - 20n * MINUTE, () => "POST /invoice"),
      ),
    );
    store.writeTraces(
      traceRequest(
        "catalog2",
        spans(2_100, UNTIL - 25n * MINUTE, (i) => `GET /old/${i}`),
      ),
    );
    store.writeTraces(
      traceRequest(
        "catalog",
        spans(2_100, UNTIL - 5n * MINUTE, (i) => `GET /item/${i}`),
      ),
    );
    store.writeTraces(
      traceRequest(
        "checkout",
        spans(30, UNTIL - 3n * MINUTE, () => "POST /pay"),
      ),
    );

    const facts = readAuditFacts(store.db, window);
    const activity = new Map(facts.activity.map((a) => [a.service, [a.currentSpans, a.baselineSpans]]));
    expect(Object.fromEntries(activity)).to.deep.equal({
      billing: [0, 40],
      catalog: [2_100, 0],
      catalog2: [0, 2_100],
      checkout: [30, 30],
    });
    const checkout = facts.activity.find((a) => a.service === "checkout");
    expect(checkout?.baselineLastNs).to.equal(UNTIL - 20n * MINUTE + 29n * 1_000_000n);
    // Only the latency facts are bounded by the operations they read.
    expect(facts.truncated).to.deep.equal(["operations: only the first 2000 were read"]);
    expect(facts.latency.current).to.have.length(2_000);
  });

  it("give an error group's newest span as its example, ties by trace id then span id, in any write order", () => {
    const at = UNTIL - 5n * MINUTE;
    const tied: SpanSpec[] = [3, 1, 2, 0].map((n) => ({
      traceId: hexId(0xabc0 + n, 16),
      spanId: hexId(0x100 + n, 8),
      name: "charge",
      startNs: at,
      error: true,
      statusMessage: "boom",
    }));
    // A second span of the lowest trace at the same instant, with a higher span id; and an
    // older span of a lower trace.
    tied.push({ ...(tied[3] as SpanSpec), spanId: hexId(0x200, 8) });
    tied.push({ ...(tied[3] as SpanSpec), traceId: hexId(1, 16), spanId: hexId(1, 8), startNs: at - MINUTE });
    const examples = [tied, [...tied].reverse()].map((order) => {
      const other = testStore();
      try {
        for (const span of order) other.writeTraces(traceRequest("pay", [span]));
        const groups = readAuditFacts(other.db, window).errorSpans.current;
        return groups.map((group) => [group.count, group.example, group.newestNs]);
      } finally {
        other.close();
      }
    });
    expect(examples[0]).to.deep.equal([[6, { traceId: hexId(0xabc0, 16), spanId: hexId(0x100, 8) }, at]]);
    expect(examples[1]).to.deep.equal(examples[0]);
  });

  it("read the newest settled orphans up to their bound", () => {
    const orphan = (n: number, startNs: bigint, durationNs = 1_000_000n): SpanSpec => ({
      traceId: hexId(n, 16),
      spanId: hexId(n, 8),
      parentSpanId: hexId(0xffff, 8),
      startNs,
      durationNs,
    });
    // Two settled orphans ten minutes back, an older one, and 5,000 whose traces are still
    // within the grace period at the window's end.
    const settled = [orphan(7, UNTIL - 10n * MINUTE), orphan(5, UNTIL - 10n * MINUTE), orphan(9, UNTIL - 12n * MINUTE)];
    const inFlight = Array.from({ length: 5_000 }, (_, i) =>
      orphan(100 + i, UNTIL - MINUTE / 2n + BigInt(i), MINUTE / 4n),
    );
    store.writeTraces(traceRequest("worker", [...settled, ...inFlight]));
    let facts = readAuditFacts(store.db, window);
    expect(facts.orphanSpans.map((o) => [o.traceId, o.startNs])).to.deep.equal([
      [hexId(5, 16), UNTIL - 10n * MINUTE],
      [hexId(7, 16), UNTIL - 10n * MINUTE],
      [hexId(9, 16), UNTIL - 12n * MINUTE],
    ]);
    expect(facts.truncated).to.deep.equal([]);
    // Past the bound, the newest are read.
    store.writeTraces(
      traceRequest(
        "worker",
        Array.from({ length: 5_000 }, (_, i) => orphan(10_000 + i, UNTIL - 9n * MINUTE + BigInt(i))),
      ),
    );
    facts = readAuditFacts(store.db, window);
    expect(facts.orphanSpans).to.have.length(5_000);
    expect(facts.orphanSpans[0]?.traceId).to.equal(hexId(14_999, 16));
    expect(facts.orphanSpans.map((o) => o.traceId)).to.not.include(hexId(7, 16));
    expect(facts.truncated).to.deep.equal(["spans with a missing parent: only the first 5000 were read"]);
  });
});

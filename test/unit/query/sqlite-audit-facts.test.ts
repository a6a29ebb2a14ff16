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
});

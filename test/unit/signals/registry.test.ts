import { expect } from "chai";
import { SIGNALS, signalNamed } from "../../../daemon/signals/registry.js";
import { Retention } from "../../../daemon/store/retention.js";
import { otlpFixture } from "../../helpers/fixtures.js";
import { metricsFixture } from "../../helpers/otlp-metrics-protobuf.js";
import { testStore } from "../../helpers/store.js";

const SAMPLE = { traces: otlpFixture("trace"), logs: otlpFixture("logs"), metrics: metricsFixture() } as const;
const FAR_FUTURE_NS = 4_000_000_000_000_000_000n;

function columnsOf(store: ReturnType<typeof testStore>, table: string): string[] {
  return store.db.prepare(`SELECT name FROM pragma_table_info('${table}')`).pluck().all() as string[];
}

describe("the signal registry", () => {
  it("registers each signal once, at its OTLP path, counted under its own name", () => {
    expect(SIGNALS.map((signal) => signal.name)).to.deep.equal(["traces", "logs", "metrics"]);
    expect(new Set(SIGNALS.map((signal) => signal.records)).size).to.equal(SIGNALS.length);
    for (const signal of SIGNALS) {
      expect(signal.path).to.equal(`/v1/${signal.name}`);
      expect(signalNamed(signal.name)).to.equal(signal);
    }
    expect([signalNamed("traces").countWords(1), signalNamed("traces").countWords(2)]).to.deep.equal([
      "1 span",
      "2 spans",
    ]);
    expect(signalNamed("logs").countWords(3)).to.equal("3 log records");
    expect(signalNamed("metrics").countWords(1)).to.equal("1 data point");
    expect(SIGNALS.map((signal) => signal.rejectedField)).to.deep.equal([
      "rejectedSpans",
      "rejectedLogRecords",
      "rejectedDataPoints",
    ]);
  });

  it("name tables and counters the store has", () => {
    const store = testStore();
    try {
      for (const { records, retention } of SIGNALS) {
        expect(store.counters(), records).to.have.property(records);
        // A signal that trims its records itself (metrics) names no table for retention to trim.
        if ("trimmer" in retention) continue;
        expect(columnsOf(store, retention.table), retention.table).to.include.members(["id", retention.timeColumn]);
        expect(columnsOf(store, retention.rollupTable), retention.rollupTable).to.include.members(["width", "slot"]);
        expect(columnsOf(store, retention.postingsTable), retention.postingsTable).to.include("last_row");
      }
    } finally {
      store.close();
    }
  });

  for (const signal of SIGNALS) {
    it(`decodes, stores and trims ${signal.name} through its module alone`, () => {
      const store = testStore();
      try {
        const batch = signal.decode(Buffer.from(SAMPLE[signal.name as keyof typeof SAMPLE]), "json");
        const count = signal.count(batch);
        expect(count).to.be.above(0);
        const context = { cutoffNs: 0n, receivedNs: 1n, sliceRecords: 1 };
        const tally = store.writer.transaction(() => signal.store(store.writer.part(signal.records), batch, context));
        expect(tally).to.deep.equal({ accepted: count, inserted: count, rejected: 0 });
        expect(store.counters()[signal.records]).to.equal(BigInt(count));
        const again = store.writer.transaction(() => signal.store(store.writer.part(signal.records), batch, context));
        expect(again).to.deep.equal({ accepted: count, inserted: 0, rejected: 0 });
        // Retention trims what is in the tables: the metric writer's held points once written.
        store.writer.writeHeld();

        const retention = new Retention(store.db, { maxAgeMs: 1000, maxBytes: 1024 ** 3, batchRows: 1000 });
        const trimmed = retention.trimByAge(FAR_FUTURE_NS);
        expect(trimmed[signal.records]).to.equal(count);
        expect(store.counters()[signal.records]).to.equal(0n);
        expect(store.counters()[signal.retention.trimmedThrough]).to.be.a("bigint");
      } finally {
        store.close();
      }
    });
  }
});

import { expect } from "chai";
import { SqliteReader } from "../../../daemon/query/sqlite-reader.js";
import { openReadConnection } from "../../../daemon/store/connection.js";
import { hexId, logsRequest, traceRequest } from "../../helpers/otlp-builders.js";
import { testStore } from "../../helpers/store.js";

const MS = 1_000_000n;
const T0 = 1_700_000_000_000_000_000n;
const WINDOW = { fromNs: T0 - 3_600_000n * MS, toNs: T0 + 3_600_000n * MS };
const NONE = { attrs: [] as [string, string][], ...WINDOW };

/** Nearest-rank percentile, computed independently of the store. */
function nearestRank(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.ceil((p / 100) * sorted.length) - 1] as number;
}

describe("trace and log aggregates, facets", () => {
  let store: ReturnType<typeof testStore>;
  let reader: SqliteReader;
  let readDb: ReturnType<typeof openReadConnection>;
  // 41 traces: service a for i < 25, else b; durations (i*7 % 50)+1 ms; errors when i % 5 == 0.
  const durations = (keep: (i: number) => boolean) =>
    Array.from({ length: 41 }, (_, i) => i)
      .filter(keep)
      .map((i) => ((i * 7) % 50) + 1);

  beforeEach(() => {
    store = testStore();
    for (let i = 0; i < 41; i++) {
      const service = i < 25 ? "a" : "b";
      store.writeTraces(
        traceRequest(service, [
          {
            traceId: hexId(i, 16),
            spanId: hexId(i, 8),
            name: i % 2 ? "odd" : "even",
            startNs: T0 + BigInt(i) * MS,
            durationNs: BigInt(((i * 7) % 50) + 1) * MS,
            error: i % 5 === 0,
            attributes: { tier: i % 3 === 0 ? "gold" : "free", flag: i % 2 === 0 },
          },
        ]),
      );
    }
    store.writeLogs(
      logsRequest("a", [
        { timeNs: T0, body: "x", severityNumber: 17, attributes: { code: 1 } },
        { timeNs: T0 + 1n, body: "y", severityNumber: 17, attributes: { code: 2 } },
        { timeNs: T0 + 2n, body: "z", severityNumber: 9, attributes: { code: 1 } },
      ]),
    );
    readDb = openReadConnection(store.path);
    reader = new SqliteReader(readDb);
  });
  afterEach(() => {
    readDb.close();
    store.close();
  });

  it("computes p95 duration per service by nearest rank", () => {
    const rows = reader.traceStats(NONE, "service", "p95_duration");
    expect(rows).to.deep.equal(
      [
        {
          group: "a",
          value: nearestRank(
            durations((i) => i < 25),
            95,
          ),
          count: 25,
        },
        {
          group: "b",
          value: nearestRank(
            durations((i) => i >= 25),
            95,
          ),
          count: 16,
        },
      ].sort((x, y) => y.value - x.value),
    );
  });

  it("computes counts, average durations and error rates (a fraction) per group", () => {
    expect(reader.traceStats(NONE, "operation", "count")).to.deep.equal([
      { group: "even", value: 21, count: 21 },
      { group: "odd", value: 20, count: 20 },
    ]);
    const avg = (v: number[]) => v.reduce((s, x) => s + x, 0) / v.length;
    const [b, a] = [durations((i) => i >= 25), durations((i) => i < 25)];
    const byService = reader.traceStats(NONE, "service", "avg_duration");
    expect(byService.find((r) => r.group === "a")!.value).to.be.closeTo(avg(a), 1e-9);
    expect(byService.find((r) => r.group === "b")!.value).to.be.closeTo(avg(b), 1e-9);
    const errors = reader.traceStats(NONE, "service", "error_rate");
    expect(errors.find((r) => r.group === "a")!.value).to.equal(5 / 25);
    expect(errors.find((r) => r.group === "b")!.value).to.equal(4 / 16);
    expect(reader.traceStats(NONE, "status", "count")).to.deep.equal([
      { group: "ok", value: 32, count: 32 },
      { group: "error", value: 9, count: 9 },
    ]);
  });

  it("groups by a root-span attribute and applies trace filters", () => {
    expect(reader.traceStats(NONE, { attr: "tier" }, "count")).to.deep.equal([
      { group: "free", value: 27, count: 27 },
      { group: "gold", value: 14, count: 14 },
    ]);
    expect(reader.traceStats({ ...NONE, service: "b" }, { attr: "flag" }, "count")).to.deep.equal([
      { group: "false", value: 8, count: 8 },
      { group: "true", value: 8, count: 8 },
    ]);
    expect(reader.traceStats({ ...NONE, status: "error" }, "service", "count").map((r) => r.count)).to.deep.equal([
      5, 4,
    ]);
  });

  it("counts logs by severity, service and attribute", () => {
    const filter = { attrs: [] as [string, string][], attrContains: [] as [string, string][], ...WINDOW };
    expect(reader.logStats(filter, "severity")).to.deep.equal([
      { group: "error", value: 2, count: 2 },
      { group: "info", value: 1, count: 1 },
    ]);
    expect(reader.logStats(filter, { attr: "code" })).to.deep.equal([
      { group: "1", value: 2, count: 2 },
      { group: "2", value: 1, count: 1 },
    ]);
    expect(reader.logStats(filter, "service")).to.deep.equal([{ group: "a", value: 3, count: 3 }]);
  });

  it("lists facet values with counts, most frequent first", () => {
    expect(reader.facets({ type: "traces", field: "service" }, WINDOW, 10)).to.deep.equal([
      { value: "a", count: 25 },
      { value: "b", count: 16 },
    ]);
    expect(reader.facets({ type: "traces", field: "status" }, WINDOW, 10)).to.deep.equal([
      { value: "ok", count: 32 },
      { value: "error", count: 9 },
    ]);
    expect(reader.facets({ type: "traces", field: "attribute_keys" }, WINDOW, 10)).to.deep.equal([
      { value: "flag", count: 41 },
      { value: "tier", count: 41 },
    ]);
    expect(
      reader.facets({ type: "traces", field: "attribute_values", key: "tier" }, { ...WINDOW, service: "a" }, 10),
    ).to.deep.equal([
      { value: "free", count: 16 },
      { value: "gold", count: 9 },
    ]);
    expect(reader.facets({ type: "logs", field: "severity" }, WINDOW, 1)).to.deep.equal([{ value: "error", count: 2 }]);
  });
});

import { expect } from "chai";
import {
  formatPercent,
  formatRate,
  ratePerSecond,
  serviceRows,
  windowSeconds,
} from "../../../../../client/web/views/services/service-rows.js";
import type { StatsAnswerRow } from "../../../../../shared/query-types.js";

const row = (group: string | null, value: number, agg: string): StatsAnswerRow => ({
  group,
  value,
  count: 1,
  agg,
  unit: "",
});

describe("the services view's rows", () => {
  it("turns a count over the lookback into a rate per second", () => {
    expect(windowSeconds("1h")).to.equal(3600);
    expect(windowSeconds("15m")).to.equal(900);
    expect(ratePerSecond(13, "1h")).to.equal(13 / 3600);
    expect(ratePerSecond(30, "30s")).to.equal(1);
    expect(ratePerSecond(5, "soon")).to.equal(undefined);
    expect(windowSeconds("0m")).to.equal(undefined);
  });

  it("joins the services with their root trace stats, newest activity first, then by name", () => {
    const rows = serviceRows(
      [
        { name: "checkout", lastSeenAt: "2026-11-25T10:00:00.000Z" },
        { name: "payments", lastSeenAt: "2026-11-25T10:00:05.000Z" },
        { name: "web", lastSeenAt: "2026-11-25T10:00:00.000Z" },
      ],
      {
        count: [row("web", 120, "count"), row(null, 4, "count")],
        errorRate: [row("web", 0.25, "error_rate")],
        p95: [row("web", 230, "p95_duration")],
      },
      "1m",
    );
    expect(rows.map((r) => r.name)).to.deep.equal(["payments", "checkout", "web"]);
    expect(rows[2]).to.deep.include({ traces: 120, ratePerSecond: 2, errorRate: 0.25, p95Ms: 230 });
    expect(rows[0]).to.deep.include({ traces: undefined, ratePerSecond: undefined, errorRate: undefined });
    expect(rows[0]?.lastSeenMs).to.equal(Date.parse("2026-11-25T10:00:05.000Z"));
  });

  it("formats rates with three significant digits and fractions as percentages", () => {
    expect(formatRate(13 / 3600)).to.equal("0.00361/s");
    expect(formatRate(12.3456)).to.equal("12.3/s");
    expect(formatRate(0)).to.equal("0/s");
    expect(formatPercent(2 / 13)).to.equal("15.4%");
    expect(formatPercent(0)).to.equal("0%");
    expect(formatPercent(1)).to.equal("100%");
  });
});

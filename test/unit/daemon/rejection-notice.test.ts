import { expect } from "chai";
import { RejectionNotice, type Schedule } from "../../../daemon/ingest/rejected-records.js";

const DAY_MS = 86_400_000;

/** A clock and timers the test moves by hand. */
function manualTime() {
  let now = Date.parse("2026-01-01T00:00:00Z");
  const timers: { at: number; run: () => void; cancelled: boolean }[] = [];
  const schedule: Schedule = (run, delayMs) => {
    const timer = { at: now + delayMs, run, cancelled: false };
    timers.push(timer);
    return { cancel: () => (timer.cancelled = true) };
  };
  return {
    clock: () => now,
    schedule,
    pending: () => timers.filter((t) => !t.cancelled).length,
    advance(ms: number) {
      now += ms;
      for (const timer of timers.splice(0)) {
        if (timer.cancelled) continue;
        if (timer.at <= now) timer.run();
        else timers.push(timer);
      }
    },
  };
}

describe("the log line about records rejected as too old", () => {
  it("says a burst's tail when the minute is up, with no later rejection", () => {
    const time = manualTime();
    const lines: string[] = [];
    const notice = new RejectionNotice(7 * DAY_MS, (line) => lines.push(line), time.clock, time.schedule);
    notice.note("traces", 1);
    time.advance(1_000);
    notice.note("traces", 4);
    notice.note("logs", 2);
    expect(lines).to.have.length(1);
    time.advance(58_999);
    expect(lines).to.have.length(1);
    time.advance(1);
    expect(lines).to.have.length(2);
    expect(lines[1]).to.match(/^obsd: rejected 4 spans and 2 log records since 2026-01-01T00:00:00.000Z older/);
    expect(time.pending()).to.equal(0);
  });

  it("says what is pending when the collector stops, and nothing more after", () => {
    const time = manualTime();
    const lines: string[] = [];
    const notice = new RejectionNotice(7 * DAY_MS, (line) => lines.push(line), time.clock, time.schedule);
    notice.note("logs", 1);
    notice.note("logs", 3);
    notice.stop();
    expect(lines.map((line) => line.match(/rejected ([^(]*?) (since|older)/)?.[1])).to.deep.equal([
      "1 log record",
      "3 log records",
    ]);
    time.advance(60_000);
    notice.stop();
    expect(lines).to.have.length(2);
  });

  it("says a rejection past the minute at once, in one line with what was pending", () => {
    const time = manualTime();
    const lines: string[] = [];
    const notice = new RejectionNotice(7 * DAY_MS, (line) => lines.push(line), time.clock, time.schedule);
    notice.note("traces", 1);
    notice.note("traces", 1);
    time.advance(59_000);
    notice.note("traces", 1);
    time.advance(1_000);
    expect(lines).to.have.length(2);
    expect(lines[1]).to.include("rejected 2 spans since");
    expect(time.pending()).to.equal(0);
  });
});

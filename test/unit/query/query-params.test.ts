import { expect } from "chai";
import {
  effectiveLimit,
  groupByList,
  hexId,
  instant,
  lookback,
  minutes,
  nonNegativeNumber,
  oneOf,
  parseParams,
  positiveInteger,
  QueryError,
  type RouteParams,
  splitGroupBy,
} from "../../../shared/query-params.js";

const route: RouteParams = {
  params: { status: oneOf("ok", "error"), lookback, limit: positiveInteger, traceId: hexId(16) },
  attr: true,
  attrContains: false,
};

describe("query parameters", () => {
  it("reads an instant to the nanosecond, in any zone, and refuses one past what a store holds", () => {
    // The audit's window ends at `until`: a span at that very nanosecond is in it.
    expect(instant("2026-11-22T10:00:00.123456789Z", "until")).to.equal(1_795_341_600_123_456_789n);
    expect(instant("2026-11-22T15:30:00.000000001+05:30", "until")).to.equal(1_795_341_600_000_000_001n);
    expect(instant("2026-11-22T10:00:00.5Z", "until")).to.equal(1_795_341_600_500_000_000n);
    expect(instant("2026-11-22T10:00Z", "until")).to.equal(1_795_341_600_000_000_000n);
    // Past nanoseconds, digits are dropped (no instant is finer).
    expect(instant("2026-11-22T10:00:00.1234567899Z", "until")).to.equal(1_795_341_600_123_456_789n);
    expect(instant("2262-04-11T23:47:16.854775807Z", "until")).to.equal(2n ** 63n - 1n);
    expect(() => instant("2262-04-11T23:47:16.854775808Z", "until")).to.throw(QueryError, /1970-01-01/);
    expect(() => instant("1969-12-31T23:59:59.999999999Z", "until")).to.throw(QueryError, /1970-01-01/);
    // A date or time that does not exist is refused, not rolled over to another.
    for (const impossible of [
      "2026-02-30T00:00:00Z",
      "2026-13-01T00:00Z",
      "2026-02-28T24:00Z",
      "2026-02-28T10:60Z",
      "2026-02-28T10:00:60Z",
    ]) {
      expect(() => instant(impossible, "until"), impossible).to.throw(QueryError, /ISO 8601/);
    }
    expect(instant("2024-02-29T00:00:00Z", "until")).to.equal(1_709_164_800_000_000_000n);
    // A fraction belongs to seconds only.
    expect(() => instant("2026-11-22T10:00.5Z", "until")).to.throw(QueryError, /ISO 8601/);
  });

  it("parses known parameters and attribute filters", () => {
    const parsed = parseParams({ status: "error", lookback: "2h", limit: "50", "attr.http.route": "/a" }, route);
    expect(parsed.values).to.deep.equal({ status: "error", lookback: 7_200_000, limit: 50 });
    expect(parsed.attrs).to.deep.equal([["http.route", "/a"]]);
  });

  it("splits groupBy at commas that start another item, so a key holding a comma stays whole", () => {
    expect(splitGroupBy("service,attr.a")).to.deep.equal(["service", "attr.a"]);
    expect(splitGroupBy("attr.a,b")).to.deep.equal(["attr.a,b"]);
    expect(splitGroupBy("attr.a,b, service,attr.c,d")).to.deep.equal(["attr.a,b", "service", "attr.c,d"]);
    expect(splitGroupBy("attr.servicex,services")).to.deep.equal(["attr.servicex,services"]);
    // A repeated parameter arrives joined with commas: each item comes back whole.
    const parsed = parseParams(
      { groupBy: ["attr.a,b", "service"] },
      { params: { groupBy: groupByList("service") }, attr: false, attrContains: false },
    );
    expect(parsed.values.groupBy).to.deep.equal([{ attr: "a,b" }, "service"]);
  });

  it("names an unknown parameter and lists the allowed ones", () => {
    expect(() => parseParams({ servce: "x" }, route)).to.throw(
      QueryError,
      /unknown parameter servce; this route accepts status, lookback, limit, traceId, attr\.KEY/,
    );
    expect(() => parseParams({ "attrContains.k": "x" }, route)).to.throw(
      QueryError,
      /unknown parameter attrContains\.k/,
    );
  });

  it("reads numbers as JSON writes them: hexadecimal, binary and blanks are refused", () => {
    expect(nonNegativeNumber("2.5", "durationMin")).to.equal(2.5);
    expect(nonNegativeNumber("1e3", "durationMin")).to.equal(1000);
    expect(minutes("30", "lookbackMinutes")).to.equal(1_800_000);
    for (const raw of ["0x10", "0b1", " 5", "5 ", "+5", "Infinity", ".5", ""]) {
      expect(() => nonNegativeNumber(raw, "durationMin"), raw).to.throw(QueryError, /durationMin/);
      expect(() => minutes(raw, "lookbackMinutes"), raw).to.throw(QueryError, /lookbackMinutes/);
    }
  });

  it("names the bad value and the allowed values", () => {
    expect(() => parseParams({ status: "failed" }, route)).to.throw(
      QueryError,
      /invalid status "failed": use one of ok, error/,
    );
    expect(() => parseParams({ limit: "0" }, route)).to.throw(QueryError, /positive integer/);
    expect(() => parseParams({ traceId: "xyz" }, route)).to.throw(QueryError, /32 hex characters/);
    expect(() => parseParams({ status: ["ok", "error"] }, route)).to.throw(QueryError, /more than once/);
  });

  it("refuses lookbacks over 24 hours, naming the maximum", () => {
    expect(parseParams({ lookback: "24h" }, route).values.lookback).to.equal(86_400_000);
    expect(parseParams({ lookback: "1d" }, route).values.lookback).to.equal(86_400_000);
    expect(() => parseParams({ lookback: "25h" }, route)).to.throw(QueryError, /maximum of 24h/);
    expect(() => parseParams({ lookback: "2d" }, route)).to.throw(QueryError, /maximum of 24h/);
    // Too long for a number of milliseconds to hold exactly: over the maximum all the same.
    for (const huge of ["1000000000d", "99999999999999999999w"]) {
      expect(() => parseParams({ lookback: huge }, route), huge).to.throw(
        QueryError,
        `lookback ${huge} is over the maximum of 24h`,
      );
    }
    expect(() => parseParams({ lookback: "soon" }, route)).to.throw(QueryError, /invalid lookback/);
  });

  it("caps the limit at the route's maximum", () => {
    expect(effectiveLimit(undefined, { limit: 20, cap: 100 })).to.equal(20);
    expect(effectiveLimit(500, { limit: 20, cap: 100 })).to.equal(100);
    expect(effectiveLimit(7, { limit: 20, cap: 100 })).to.equal(7);
  });
});

import { expect } from "chai";
import type { Argv, Options } from "yargs";
import { flaggedParams, flagRequest, routeFlags } from "../../../client/cli/route-flags.js";
import { QUERY_ROUTES } from "../../../shared/query-routes.js";
import { yargs } from "../../../shared/yargs-loader.js";

/** An Argv that only records the options defined on it, in order. */
function recordingArgv(): { argv: Argv; options: [string, Options][] } {
  const options: [string, Options][] = [];
  const argv = {
    option(name: string, option: Options) {
      options.push([name, option]);
      return argv;
    },
  };
  return { argv: argv as unknown as Argv, options };
}

describe("query command flags from the route table", () => {
  it("finds the parameters a flag sets, in the table's order", () => {
    expect(flaggedParams("searchSpans").map(([name, spec]) => [name, spec.flag])).to.deep.equal([
      ["service", "service"],
      ["traceId", "trace-id"],
      ["operation", "operation"],
      ["parentOperation", "parent-operation"],
      ["status", "status"],
      ["lookback", "since"],
      ["limit", "limit"],
      ["cursor", "cursor"],
    ]);
    // Positionals and the minutes the audit computes from --since are not flags of their own.
    expect(flaggedParams("traceStats").map(([name]) => name)).to.not.include.members(["groupBy", "agg"]);
    expect(flaggedParams("audit").map(([name]) => name)).to.deep.equal(["service", "durationMin", "until"]);
  });

  it("types each option by the parameter's kind, and shows the route's default only when asked", () => {
    const { argv, options } = recordingArgv();
    routeFlags(argv, "listTraces", {
      status: "Only error traces, or only the others",
      lookback: { describe: "Lookback", withDefault: true },
      durationMin: "At least this many ms",
      limit: "Page size",
    });
    expect(options.slice(0, 4)).to.deep.equal([
      ["status", { describe: "Only error traces, or only the others", choices: ["ok", "error"], requiresArg: true }],
      ["since", { describe: "Lookback", type: "string", default: "15m", requiresArg: true }],
      ["duration-min", { describe: "At least this many ms", type: "number", requiresArg: true }],
      ["limit", { describe: "Page size", type: "number", requiresArg: true }],
    ]);
  });

  it("adds every route flag the command does not lay out, after its own, described by the table", () => {
    const { argv, options } = recordingArgv();
    routeFlags(argv, "listTraces", {
      baseline: { own: { type: "string", describe: "A flag of the command's own" } },
      cursor: "Next page",
    });
    const params = QUERY_ROUTES.listTraces.params;
    expect(options).to.deep.equal([
      ["baseline", { type: "string", describe: "A flag of the command's own" }],
      ["cursor", { describe: "Next page", type: "string", requiresArg: true }],
      ["service", { describe: params.service.description, type: "string", requiresArg: true }],
      ["status", { describe: params.status.description, choices: ["ok", "error"], requiresArg: true }],
      ["operation", { describe: params.operation.description, type: "string", requiresArg: true }],
      ["duration-min", { describe: params.durationMin.description, type: "number", requiresArg: true }],
      ["since", { describe: params.lookback.description, type: "string", requiresArg: true }],
      ["limit", { describe: params.limit.description, type: "number", requiresArg: true }],
    ]);
  });

  it("makes every route flag take a value: given bare, it is an argument error, not the default", async () => {
    const parser = routeFlags(yargs([]).exitProcess(false).fail(false), "listTraces", {
      lookback: { describe: "Lookback", withDefault: true },
    });
    let message = "";
    try {
      await parser.parseAsync(["--since"]);
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message).to.equal("Not enough arguments following: since");
  });

  it("refuses a layout naming a parameter that has no flag", () => {
    expect(() => routeFlags(recordingArgv().argv, "traceStats", { groupBy: "Group" })).to.throw(
      "traceStats has no parameter groupBy with a flag",
    );
  });

  it("turns the parsed command line into the request's fields, leaving out flags not given", async () => {
    const parser = routeFlags(yargs([]), "searchLogs", {});
    const flags = await parser.parseAsync([
      "--trace-id",
      "0123456789abcdef0123456789abcdef",
      "--span-id=0123456789abcdef",
      "--contains",
      "it's down",
      "--limit",
      "5",
      "--since",
      "2h",
    ]);
    expect(flagRequest("searchLogs", flags)).to.deep.equal({
      traceId: "0123456789abcdef0123456789abcdef",
      spanId: "0123456789abcdef",
      contains: "it's down",
      lookback: "2h",
      limit: 5,
    });
  });

  it("makes a list parameter's flag repeatable, one value per occurrence, kept as a list", async () => {
    const { argv, options } = recordingArgv();
    routeFlags(argv, "metricSeries", { groupBy: "Group by" });
    expect(options[0]).to.deep.equal([
      "group-by",
      { describe: "Group by", type: "string", array: true, nargs: 1, requiresArg: true },
    ]);
    const parser = routeFlags(
      yargs([]).command("metric <name> [filters..]", "", () => {}),
      "metricSeries",
      {},
    );
    const flags = await parser.parseAsync(["metric", "m", "--group-by", "service", "attr.k=v", "--group-by", "attr.x"]);
    expect(flags.filters).to.deep.equal(["attr.k=v"]);
    expect(flagRequest("metricSeries", flags)).to.deep.equal({ groupBy: ["service", "attr.x"] });
    expect(flagRequest("metricSeries", { groupBy: "service" })).to.deep.equal({ groupBy: ["service"] });
  });

  it("makes --include repeatable, its occurrences sent as one comma-separated list", async () => {
    const parser = routeFlags(
      yargs([]).command("trace <traceId>", "", () => {}),
      "getTrace",
      {},
    );
    const flags = await parser.parseAsync(["trace", "t", "--include", "spans", "--include", "logs,attributes"]);
    expect(flagRequest("getTrace", flags)).to.deep.equal({ include: "spans,logs,attributes" });
    expect(flagRequest("getTrace", { include: "spans" })).to.deep.equal({ include: "spans" });
  });

  it("sends a value as typed, even one the collector will refuse", () => {
    expect(flagRequest("facets", { limit: Number.NaN, service: "", key: ["a", "b"] })).to.deep.equal({
      key: "a,b",
      service: "",
      limit: Number.NaN,
    });
  });
});

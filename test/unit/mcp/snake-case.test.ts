import { expect } from "chai";
import { MCP_TOOLS } from "../../../daemon/mcp/tool-list.js";
import { snakeCase, snakeKeys } from "../../../daemon/mcp/tools/snake-case.js";

/** Every property name an object schema declares, at any depth (properties and items). */
function propertyNames(schema: unknown, into: string[] = []): string[] {
  if (schema === null || typeof schema !== "object") return into;
  const { properties, items } = schema as { properties?: Record<string, unknown>; items?: unknown };
  for (const [name, property] of Object.entries(properties ?? {})) {
    into.push(name);
    propertyNames(property, into);
  }
  propertyNames(items, into);
  return into;
}

describe("MCP answer naming", () => {
  it("turns camelCase names into snake_case and leaves others alone", () => {
    expect(["durationMin", "p95Ms", "errorTraces", "traces", "trace_id"].map(snakeCase)).to.deep.equal([
      "duration_min",
      "p95_ms",
      "error_traces",
      "traces",
      "trace_id",
    ]);
    expect(snakeKeys({ slowTraces: 2, maxMs: 1.5 })).to.deep.equal({ slow_traces: 2, max_ms: 1.5 });
  });

  it("declares every answer field of every tool in snake_case, as the arguments are", () => {
    for (const tool of MCP_TOOLS) {
      const names = propertyNames(tool.outputSchema);
      expect(names.length, tool.name).to.be.greaterThan(0);
      for (const name of names) expect(name, `${tool.name}: ${name}`).to.match(/^[a-z][a-z0-9]*(_[a-z0-9]+)*$/);
    }
  });
});

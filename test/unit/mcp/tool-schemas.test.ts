import { Ajv } from "ajv";
import { expect } from "chai";
import { MCP_TOOLS } from "../../../daemon/mcp/tool-list.js";

/** Every key used anywhere in a schema, at any depth. */
function keysOf(value: unknown, into: Set<string> = new Set()): Set<string> {
  if (Array.isArray(value)) for (const item of value) keysOf(item, into);
  else if (value !== null && typeof value === "object") {
    for (const [key, item] of Object.entries(value)) {
      into.add(key);
      keysOf(item, into);
    }
  }
  return into;
}

describe("MCP tool schemas", () => {
  it("has unique snake_case names and a description written out for each tool", () => {
    const names = MCP_TOOLS.map((tool) => tool.name);
    expect(new Set(names).size).to.equal(names.length);
    for (const tool of MCP_TOOLS) {
      expect(tool.name).to.match(/^[a-z]+(_[a-z]+)*$/);
      expect(tool.description.length, tool.name).to.be.greaterThan(60);
    }
  });

  it("declares object schemas every client accepts: no $ref, $defs or $schema, and max_bytes on every input", () => {
    const ajv = new Ajv({ strict: true, strictRequired: false, allowUnionTypes: true });
    for (const tool of MCP_TOOLS) {
      for (const schema of [tool.inputSchema, tool.outputSchema]) {
        expect(schema.type, tool.name).to.equal("object");
        const keys = keysOf(schema);
        for (const banned of ["$ref", "$defs", "$schema", "definitions"])
          expect(keys.has(banned), `${tool.name} ${banned}`).to.equal(false);
        expect(() => ajv.compile(schema), tool.name).not.to.throw();
      }
      expect(tool.inputSchema.properties, tool.name).to.have.property("max_bytes");
      expect(tool.outputSchema.required, tool.name).to.include.members(["truncated", "next"]);
    }
  });
});

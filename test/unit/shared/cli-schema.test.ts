import { readFileSync } from "node:fs";
import { expect } from "chai";
import { successEnvelope } from "../../../shared/cli-envelope.js";
import { cliDocumentSchema, DESCRIBED_COMMANDS, toCliSchema } from "../../../shared/cli-schema.js";
import { packagePath } from "../../../shared/package-root.js";
import { cliDocumentValidator } from "../../helpers/schema-validator.js";

const validate = cliDocumentValidator();

describe("CLI document schema (schemas/cli/commands.json)", () => {
  it("is the committed output of `npm run schemas`", () => {
    const committed = JSON.parse(readFileSync(packagePath("schemas", "cli", "commands.json"), "utf8"));
    expect(committed, "schemas/cli/commands.json is stale: run npm run schemas").to.deep.equal(
      JSON.parse(JSON.stringify(cliDocumentSchema())),
    );
  });

  it("describes every query and lifecycle command", () => {
    for (const command of [
      "monitor status",
      "status",
      "services",
      "traces",
      "trace",
      "span",
      "logs",
      "facets",
      "metrics",
      "metric",
    ])
      expect(DESCRIBED_COMMANDS).to.include(command);
  });

  it("translates record schemas as the CLI translates records", () => {
    expect(
      toCliSchema({
        type: "object",
        required: ["traceId"],
        properties: {
          traceId: { type: "string" },
          rootSpanId: { type: "string", nullable: true },
          parent: { nullable: true, allOf: [{ $ref: "#/components/schemas/Span" }] },
          attributes: { $ref: "#/components/schemas/Attributes" },
        },
      }),
    ).to.deep.equal({
      type: "object",
      required: ["trace_id"],
      properties: {
        trace_id: { type: "string" },
        root_span_id: { type: ["string", "null"] },
        parent: { oneOf: [{ type: "null" }, { $ref: "#/definitions/Span" }] },
        attributes: { $ref: "#/definitions/Attributes" },
      },
    });
  });

  it("lists null once in a nullable enum, whether or not the record schema lists it", () => {
    for (const values of [
      ["delta", "cumulative"],
      ["delta", "cumulative", null],
    ]) {
      expect(toCliSchema({ type: "string", enum: values, nullable: true })).to.deep.equal({
        type: ["string", "null"],
        enum: ["delta", "cumulative", null],
      });
    }
  });

  it("accepts a command's real data shape and rejects a wrong one", () => {
    const service = { name: "shop", lastSeenAt: "2026-11-22T10:00:00.000000000Z" };
    expect(validate(successEnvelope("services", [service])), JSON.stringify(validate.errors)).to.equal(true);
    expect(validate(successEnvelope("services", [{ ...service, extra: 1 }]))).to.equal(false);
    expect(validate(successEnvelope("traces", [service]))).to.equal(false);
  });
});

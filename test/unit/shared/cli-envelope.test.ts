import { readFileSync } from "node:fs";
import { expect } from "chai";
import {
  ERROR_EXIT_CODES,
  errorEnvelope,
  exitCodeOf,
  successEnvelope,
  toSnakeCase,
} from "../../../shared/cli-envelope.js";
import { packagePath } from "../../../shared/package-root.js";
import { compileSchema } from "../../helpers/schema-validator.js";

const validate = compileSchema(JSON.parse(readFileSync(packagePath("schemas", "cli", "envelope.json"), "utf8")));

describe("CLI JSON envelope", () => {
  it("converts API keys to snake_case, leaving attribute keys and values as sent", () => {
    expect(
      toSnakeCase({
        traceId: "ab",
        rootServiceName: "api",
        spans: [{ startTimeUnixNano: "1", attributes: { "http.route": "/x", userId: "u1" } }],
        meta: { nextCursor: null },
      }),
    ).to.deep.equal({
      trace_id: "ab",
      root_service_name: "api",
      spans: [{ start_time_unix_nano: "1", attributes: { "http.route": "/x", userId: "u1" } }],
      meta: { next_cursor: null },
    });
  });

  it("builds success documents that match the schema", () => {
    const page = { limit: 20, lookback: "15m", returned: 1, truncated: false, nextCursor: null };
    const envelope = successEnvelope("traces", [{ traceId: "ab" }], page);
    expect(envelope).to.include({ schema_version: "obs.cli/v1", command: "traces" });
    expect(envelope.page).to.deep.equal({
      limit: 20,
      lookback: "15m",
      returned: 1,
      truncated: false,
      next_cursor: null,
    });
    expect(validate(envelope), JSON.stringify(validate.errors)).to.equal(true);
  });

  it("builds error documents that match the schema, with a code per exit status", () => {
    const envelope = errorEnvelope("traces", "collector_unavailable", "no collector at http://127.0.0.1:1", {
      url: "http://127.0.0.1:1",
    });
    expect(validate(envelope), JSON.stringify(validate.errors)).to.equal(true);
    expect(envelope.error).to.deep.equal({
      code: "collector_unavailable",
      message: "no collector at http://127.0.0.1:1",
      details: { url: "http://127.0.0.1:1" },
    });
    expect(exitCodeOf("collector_unavailable")).to.equal(3);
    expect(exitCodeOf("invalid_argument")).to.equal(2);
    expect(exitCodeOf("store_failure")).to.equal(4);
    expect(exitCodeOf("timeout")).to.equal(5);
    expect(exitCodeOf("audit_failed")).to.equal(1);
    expect(new Set(Object.values(ERROR_EXIT_CODES))).to.deep.equal(new Set([1, 2, 3, 4, 5]));
  });

  it("is refused by the schema when a required key is missing or a key is unknown", () => {
    const envelope = successEnvelope("services", []);
    expect(validate({ ...envelope, schema_version: "obs.cli/v2" })).to.equal(false);
    expect(validate({ ...envelope, extra: true })).to.equal(false);
    const { warnings: _unused, ...withoutWarnings } = envelope;
    expect(validate(withoutWarnings)).to.equal(false);
  });
});

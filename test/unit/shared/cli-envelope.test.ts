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

  it("passes log bodies and every attribute map through byte for byte, converting only field names", () => {
    const log = {
      logId: "l1",
      body: { someCamel: { innerCamel: 1 }, list: [{ deepKey: "v" }] },
      attributes: { "user.id": "u1", nestedMap: { innerCamel: true } },
      resource: { attributes: { "service.name": "shop", hostName: "h" }, schemaUrl: null },
      scope: { name: "s", version: null, attributes: { scopeKey: { innerCamel: 2 } } },
    };
    const span = {
      spanId: "ab",
      events: [{ name: "exception", attributes: { "exception.type": "E", errorDetail: { innerCamel: 3 } } }],
      links: [{ traceId: "cd", attributes: { linkKey: { innerCamel: 4 } } }],
    };
    expect(toSnakeCase({ logs: [log], spans: [span], logsTruncated: false })).to.deep.equal({
      logs: [
        {
          log_id: "l1",
          body: { someCamel: { innerCamel: 1 }, list: [{ deepKey: "v" }] },
          attributes: { "user.id": "u1", nestedMap: { innerCamel: true } },
          resource: { attributes: { "service.name": "shop", hostName: "h" }, schema_url: null },
          scope: { name: "s", version: null, attributes: { scopeKey: { innerCamel: 2 } } },
        },
      ],
      spans: [
        {
          span_id: "ab",
          events: [{ name: "exception", attributes: { "exception.type": "E", errorDetail: { innerCamel: 3 } } }],
          links: [{ trace_id: "cd", attributes: { linkKey: { innerCamel: 4 } } }],
        },
      ],
      logs_truncated: false,
    });
  });

  it("passes a metric group's key values and a metric's metadata through, converting only field names", () => {
    const group = {
      group: { service: "api", "attr.userId": "u1" },
      latest: 2,
      exemplarTraceIds: ["ab"],
    };
    expect(toSnakeCase({ groups: [group], metadata: { sourceKind: "x" }, stepMs: 1 })).to.deep.equal({
      groups: [{ group: { service: "api", "attr.userId": "u1" }, latest: 2, exemplar_trace_ids: ["ab"] }],
      metadata: { sourceKind: "x" },
      step_ms: 1,
    });
  });

  it("converts a span tree 20,000 levels deep without running out of stack", () => {
    const root = { spanId: "0", children: [] as unknown[] };
    let node = root;
    for (let depth = 1; depth < 20_000; depth += 1) {
      const child = { spanId: String(depth), children: [] as unknown[] };
      node.children.push(child);
      node = child;
    }
    interface Converted {
      span_id: string;
      children: Converted[];
    }
    const converted = toSnakeCase({ tree: [root] }) as { tree: Converted[] };
    let levels = 0;
    for (let nodes = converted.tree; nodes[0] !== undefined; nodes = nodes[0].children) levels += 1;
    expect(levels).to.equal(20_000);
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

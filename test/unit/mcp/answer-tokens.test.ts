import { expect } from "chai";
import { encode } from "gpt-tokenizer/encoding/o200k_base";
import { MAX_MAX_BYTES } from "../../../daemon/mcp/budget.js";
import { callMcpTool, type ToolCallResult } from "../../../daemon/mcp/mcp-tool-call.js";
import { searchSpans } from "../../../daemon/mcp/tools/spans.js";
import { getTraceOutline } from "../../../daemon/mcp/tools/trace-outline.js";
import { type StoreApi, storeApi, TOOL_BASE_URL } from "../../helpers/mcp-tools.js";
import { hexId, type SpanSpec, traceRequest } from "../../helpers/otlp-builders.js";
import { type TestStore, testStore } from "../../helpers/store.js";

const MS = 1_000_000n;
const NOW = 1_800_000_000_000n * MS;
const TRACE = hexId(7, 16);
/**
 * Claude Code refuses a tool result over 25,000 tokens. This test counts with an OpenAI
 * tokenizer (o200k), a stand-in for Claude's, which may split hex finer: a fifth is kept spare.
 */
const CLIENT_TOKEN_LIMIT = 20_000;

/** A wide trace of random-looking ids: the densest JSON a tool answers (hex tokenizes poorly). */
function wideTrace(count: number): SpanSpec[] {
  return Array.from({ length: count }, (_, i) => ({
    traceId: TRACE,
    spanId: hexId(0x9e3779b1 * (i + 1), 8),
    ...(i === 0 ? {} : { parentSpanId: hexId(0x9e3779b1 * (Math.floor(i / 4) + 1), 8) }),
    name: `op-${i % 13}`,
    startNs: NOW - 60_000n * MS + BigInt(i) * 3_917n,
    durationNs: BigInt(1_000 + ((i * 7919) % 50_000)) * 1_000n,
    error: i % 97 === 0,
    attributes: { "db.statement": `SELECT * FROM t${i % 5} WHERE id = ${i}` },
  }));
}

function tokensOf(result: ToolCallResult): number {
  return encode(result.content.map((block) => block.text).join("\n")).length;
}

describe("MCP answers at the largest max_bytes stay under the token limit clients enforce", function () {
  this.timeout(60_000);
  let store: TestStore;
  let query: StoreApi;
  before(() => {
    store = testStore();
    store.writeTraces(traceRequest("api", wideTrace(3_000)));
    query = storeApi(store.path);
    query.setNow(NOW);
  });
  after(() => {
    query.close();
    store.close();
  });

  for (const [tool, args] of [
    [getTraceOutline, { trace_id: TRACE }],
    [searchSpans, { trace_id: TRACE, limit: 500 }],
  ] as const) {
    it(`${tool.name}: a full answer of max_bytes ${MAX_MAX_BYTES} is under ${CLIENT_TOKEN_LIMIT} tokens`, async () => {
      const result = await callMcpTool(tool, { ...args, max_bytes: MAX_MAX_BYTES }, async () => ({
        api: query.api,
        baseUrl: TOOL_BASE_URL,
      }));
      expect(result.isError, result.content[0]?.text).to.not.equal(true);
      const answer = result.structuredContent as { truncated: boolean };
      // Full: the budget, not the data, ended the answer.
      expect(answer.truncated).to.equal(true);
      expect(Buffer.byteLength(JSON.stringify(answer))).to.be.above(MAX_MAX_BYTES * 0.9);
      expect(tokensOf(result)).to.be.below(CLIENT_TOKEN_LIMIT);
    });
  }
});

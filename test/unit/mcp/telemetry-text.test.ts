import { expect } from "chai";
import { MAX_STRING_CHARS } from "../../../daemon/mcp/budget.js";
import { usableCalls } from "../../../daemon/mcp/tools/next-calls.js";
import { LABEL_CHARS, label, quoted } from "../../../daemon/mcp/tools/telemetry-text.js";

describe("telemetry text in summaries and why", () => {
  it("quotes a value as a JSON string, every control character escaped, cut at LABEL_CHARS", () => {
    expect(quoted("GET /cart")).to.equal('"GET /cart"');
    expect(quoted('a\n\n{"b":1}\u001b[2J')).to.equal('"a\\n\\n{\\"b\\":1}\\u001b[2J"');
    // JSON leaves these raw; a terminal (C1 CSI) or a line breaker (U+2028) would act on them.
    expect(quoted("x\u009b2J\u2028\u202e\u007f")).to.equal('"x\\u009b2J\\u2028\\u202e\\u007f"');
    expect(JSON.parse(quoted("x\u009b\u2028"))).to.equal("x\u009b\u2028");
    const long = "n".repeat(1000);
    expect(quoted(long)).to.equal(`"${"n".repeat(LABEL_CHARS)}…[+${1000 - LABEL_CHARS} chars]"`);
    expect(label(long)).to.equal(`${"n".repeat(LABEL_CHARS)}…[+${1000 - LABEL_CHARS} chars]`);
  });

  it("leaves out a next call whose argument is too long to show whole", () => {
    const call = (service: string) => ({ tool: "search_traces", arguments: { service }, why: "w" });
    const keyed = {
      tool: "search_spans",
      arguments: { attributes: { ["k".repeat(MAX_STRING_CHARS + 1)]: "v" } },
      why: "w",
    };
    expect(
      usableCalls([call("api"), call("s".repeat(MAX_STRING_CHARS + 1)), keyed, call("s".repeat(MAX_STRING_CHARS))]),
    ).to.deep.equal([call("api"), call("s".repeat(MAX_STRING_CHARS))]);
  });
});

import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { expect } from "chai";
import { MockProvider, readTranscript, resolveTarget } from "../../../../client/checks/providers/mock-provider.js";
import type { ModelRequest } from "../../../../client/checks/providers/model-provider.js";
import { tempDir } from "../../../helpers/temp-dir.js";

const ELEMENTS = [
  { index: 1, label: "Username" },
  { index: 2, label: "Password" },
  { index: 3, label: "Sign in with SSO" },
  { index: 4, label: "Sign in" },
];

function request(test: string, instruction: string, assistantTurns: number): ModelRequest {
  return {
    system: "s",
    messages: [
      { role: "user", content: instruction },
      ...Array.from({ length: assistantTurns }, (_, i) => ({
        role: "assistant" as const,
        content: null,
        toolCalls: [{ id: `m${i}`, name: "wait", arguments: {} }],
      })),
    ],
    tools: [],
    context: { test, instruction, elements: ELEMENTS },
  };
}

describe("mock provider", () => {
  const transcript = {
    schema_version: "obs.mock-transcript/v1" as const,
    entries: [
      {
        test: "login",
        instruction: "sign in",
        calls: [
          { tool: "click", args: { target: "sign in" } },
          { tool: "done", args: { evidence: "in" } },
        ],
      },
      {
        instruction: "greets",
        calls: [{ tool: "done", args: { quote: "Welcome, ada", evidence: "hello" }, text: "looks right" }],
      },
    ],
  };
  const provider = new MockProvider("mock", transcript);

  it("replays the matching entry's calls turn by turn, resolving targets to indexes", async () => {
    const first = await provider.complete(request("login", "Sign in as ada", 0));
    expect(first.toolCalls).to.deep.equal([{ id: "mock-1", name: "click", arguments: { index: 4 } }]);
    const second = await provider.complete(request("login", "Sign in as ada", 1));
    expect(second.toolCalls[0]).to.deep.include({ name: "done", arguments: { evidence: "in" } });
    const any = await provider.complete(request("other test", "it greets ada", 0));
    expect(any).to.deep.include({ text: "looks right" });
    // A check's quote reaches the loop as scripted, which looks for it on the page.
    expect(any.toolCalls[0]?.arguments).to.deep.equal({ quote: "Welcome, ada", evidence: "hello" });
    expect(first.usage.inputTokens).to.be.greaterThan(0);
  });

  it("answers fail, naming what is missing, when the transcript has no entry or no more calls", async () => {
    const none = await provider.complete(request("login", "buy a hat", 0));
    expect(none.toolCalls[0]?.arguments.reason).to.equal(
      'the mock transcript has no entry for "buy a hat" in test "login"',
    );
    const spent = await provider.complete(request("login", "sign in", 2));
    expect(spent.toolCalls[0]?.arguments.reason).to.equal(
      'the mock transcript has no call 3 for "sign in" in test "login"',
    );
  });

  it("prefers an exact label, then the first containing the target; -1 when none", () => {
    expect(resolveTarget("Sign in", ELEMENTS)).to.equal(4);
    expect(resolveTarget("sso", ELEMENTS)).to.equal(3);
    expect(resolveTarget("Checkout", ELEMENTS)).to.equal(-1);
  });

  it("refuses an invalid transcript file with exit 2, naming the problem", () => {
    const dir = tempDir();
    try {
      const path = join(dir.path, "t.json");
      writeFileSync(
        path,
        JSON.stringify({ schema_version: "obs.mock-transcript/v1", entries: [{ calls: [{ tool: "jump" }] }] }),
      );
      expect(() => readTranscript(path))
        .to.throw(
          /mock transcript .*t\.json is invalid: \/entries\/0\/calls\/0\/tool must be equal to one of the allowed values/,
        )
        .with.property("code", "invalid_argument");
      expect(() => readTranscript(join(dir.path, "missing.json"))).to.throw(/cannot be read/);
    } finally {
      dir.cleanup();
    }
  });
});

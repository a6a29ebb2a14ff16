import { expect } from "chai";
import { type AgentPage, type LoopContext, runInstruction } from "../../../../client/checks/agent/agent-loop.js";
import type { RawSnapshot } from "../../../../client/checks/agent/snapshot-script.js";
import type {
  ModelMessage,
  ModelProvider,
  ModelRequest,
  ModelResponse,
} from "../../../../client/checks/providers/model-provider.js";

/** A page whose text is a counter that "click" on [1] increments; its screenshot names the count. */
class CounterPage implements AgentPage {
  count = 0;
  screenshots = 0;
  async snapshot(): Promise<RawSnapshot> {
    return {
      url: "http://test/",
      title: "Counter",
      elements: [
        {
          index: 1,
          tag: "button",
          role: null,
          type: null,
          label: "More",
          value: null,
          checked: null,
          disabled: false,
          href: null,
        },
      ],
      elementsTruncated: false,
      text: `count ${this.count}`,
      textTruncated: false,
    };
  }
  async perform(tool: string): Promise<string> {
    if (tool === "click") this.count += 1;
    return `${tool} done`;
  }
  async screenshotData(): Promise<string> {
    this.screenshots += 1;
    return Buffer.from(`png of count ${this.count}`).toString("base64");
  }
}

/** Answers with the scripted calls in turn (null: text without a tool call) and keeps each request. */
class ScriptedProvider implements ModelProvider {
  readonly name = "scripted";
  readonly model = "script";
  requests: ModelRequest[] = [];
  constructor(private readonly calls: ({ name: string; arguments: Record<string, unknown> } | null)[]) {}
  async complete(request: ModelRequest): Promise<ModelResponse> {
    this.requests.push(request);
    const call = this.calls[this.requests.length - 1] ?? null;
    return {
      text: call ? null : "thinking aloud",
      toolCalls: call ? [{ id: `c${this.requests.length}`, ...call }] : [],
      usage: { inputTokens: 1, outputTokens: 1 },
    };
  }
}

function context(page: AgentPage, provider: ModelProvider, vision: boolean): LoopContext {
  return {
    test: "t",
    provider,
    page,
    budget: { used: 0, max: null },
    deadline: Date.now() + 60_000,
    usage: { inputTokens: 0, outputTokens: 0 },
    onStep: async () => {},
    vision,
  };
}

const click = { name: "click", arguments: { index: 1 } };
const script = () => new ScriptedProvider([click, null, click, { name: "done", arguments: { evidence: "count 2" } }]);
const decoded = (message: ModelMessage | undefined) =>
  message && "image" in message && message.image ? Buffer.from(message.image.data, "base64").toString() : null;

describe("agent loop with --vision", () => {
  it("sends a screenshot of the page with the message that carries the newest snapshot, and only with it", async () => {
    const page = new CounterPage();
    const provider = script();
    await runInstruction("act", "click twice", context(page, provider, true));
    expect(provider.requests).to.have.length(4);
    // Turn by turn: the message with the newest snapshot (first user message, then the latest
    // tool result or the user turn after a reply without a tool call) carries that page's image.
    expect(
      provider.requests.map((request) => [request.messages.at(-1)?.role, decoded(request.messages.at(-1))]),
    ).to.deep.equal([
      ["user", "png of count 0"],
      ["tool", "png of count 1"],
      ["user", "png of count 1"],
      ["tool", "png of count 2"],
    ]);
    for (const request of provider.requests) {
      const withImage = request.messages.filter((message) => "image" in message && message.image !== undefined);
      expect(withImage).to.have.length(1);
      // The text snapshot stays beside the image.
      expect((request.messages.at(-1) as { content: string }).content).to.include("count");
    }
    expect(page.screenshots).to.equal(4);
  });

  it("sends text only, and takes no screenshot, without --vision", async () => {
    const page = new CounterPage();
    const provider = script();
    await runInstruction("act", "click twice", context(page, provider, false));
    expect(provider.requests).to.have.length(4);
    for (const request of provider.requests) {
      expect(request.messages.some((message) => "image" in message)).to.equal(false);
    }
    expect(page.screenshots).to.equal(0);
  });
});

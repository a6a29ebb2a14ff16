import { expect } from "chai";
import {
  type AgentPage,
  AgentStopped,
  type LoopContext,
  runInstruction,
  type StepRecord,
} from "../../../../client/checks/agent/agent-loop.js";
import type { LessonDraft } from "../../../../client/checks/agent/runner-lessons.js";
import type { RawSnapshot } from "../../../../client/checks/agent/snapshot-script.js";
import type { ModelProvider, ModelRequest, ModelResponse } from "../../../../client/checks/providers/model-provider.js";
import { parseSkill } from "../../../../client/skills/skill-document.js";

/** A page whose text is a counter: "click" on [1] increments it, unless frozen. */
class CounterPage implements AgentPage {
  count = 0;
  performed: string[] = [];
  constructor(private readonly frozen = false) {}
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
  async perform(tool: string, args: Record<string, unknown>): Promise<string> {
    this.performed.push(`${tool} ${JSON.stringify(args)}`);
    if (tool === "click" && args.index !== 1)
      throw new Error(`there is no element [${args.index}] in the latest snapshot`);
    if (tool === "click" && !this.frozen) this.count += 1;
    return `${tool} done`;
  }
}

/** Answers each turn with the next scripted call, and keeps every request it saw. */
class ScriptedProvider implements ModelProvider {
  readonly name = "scripted";
  readonly model = "script";
  requests: ModelRequest[] = [];
  constructor(private readonly calls: ({ name: string; arguments: Record<string, unknown> } | null)[]) {}
  async complete(request: ModelRequest): Promise<ModelResponse> {
    this.requests.push(request);
    const turn = this.requests.length - 1;
    const call = turn < this.calls.length ? this.calls[turn] : { name: "fail", arguments: { reason: "script ended" } };
    return {
      text: call ? null : "I think we are done",
      toolCalls: call ? [{ id: `c${this.requests.length}`, ...call }] : [],
      usage: { inputTokens: 10, outputTokens: 2 },
    };
  }
}

function context(
  page: AgentPage,
  provider: ModelProvider,
  max: number | null = null,
): LoopContext & { steps: StepRecord[] } {
  const steps: StepRecord[] = [];
  return {
    steps,
    test: "t",
    provider,
    page,
    budget: { used: 0, max },
    deadline: Date.now() + 60_000,
    usage: { inputTokens: 0, outputTokens: 0 },
    onStep: async (step) => {
      steps.push(step);
    },
  };
}

const click = { name: "click", arguments: { index: 1 } };

describe("agent loop", () => {
  it("runs tool calls until done, recording each step with its evidence and token usage", async () => {
    const page = new CounterPage();
    const provider = new ScriptedProvider([click, click, { name: "done", arguments: { evidence: "count 2" } }]);
    const ctx = context(page, provider);
    const outcome = await runInstruction("act", "click twice", ctx);
    expect(outcome).to.deep.include({ finished: "done", text: "count 2", steps: 3 });
    expect(outcome.fingerprint).to.match(/^[0-9a-f]{40}$/);
    expect(page.count).to.equal(2);
    expect(ctx.steps.map((step) => [step.tool, step.ok, step.pageChanged])).to.deep.equal([
      ["click", true, true],
      ["click", true, true],
      ["done", true, false],
    ]);
    expect(ctx.usage).to.deep.equal({ inputTokens: 30, outputTokens: 6 });
    // The model sees the latest page in the latest tool result.
    const last = provider.requests[2]?.messages.at(-1);
    expect(last).to.deep.include({ role: "tool", toolCallId: "c2" });
    expect((last as { content: string }).content).to.include("count 2");
  });

  it("tells the model about refused calls and failed actions instead of stopping", async () => {
    const page = new CounterPage();
    const provider = new ScriptedProvider([
      { name: "click", arguments: { index: 9 } },
      { name: "teleport", arguments: {} },
      { name: "type", arguments: { index: 1 } },
      null,
      { name: "fail", arguments: { reason: "cannot" } },
    ]);
    const ctx = context(page, provider);
    const outcome = await runInstruction("act", "do it", ctx);
    expect(outcome.finished).to.equal("fail");
    expect(ctx.steps.map((step) => [step.ok, step.evidence])).to.deep.equal([
      [false, "there is no element [9] in the latest snapshot"],
      [
        false,
        '"teleport" is not available here; use one of: navigate, click, type, select, press, scroll, wait, done, fail',
      ],
      [false, 'type needs "text"'],
      [false, "no tool was called; call exactly one of the tools"],
      [true, "cannot"],
    ]);
    const nudge = provider.requests[4]?.messages.slice(-2);
    expect(nudge?.[0]).to.deep.include({ role: "assistant", toolCalls: [] });
    expect(nudge?.[1]?.role).to.equal("user");
  });

  it("offers a check only looking tools, and refuses a click", async () => {
    const page = new CounterPage();
    const provider = new ScriptedProvider([
      click,
      { name: "done", arguments: { quote: "count 0", evidence: "the page reads count 0" } },
    ]);
    const ctx = context(page, provider);
    const outcome = await runInstruction("check", "count is 0", ctx);
    expect(provider.requests[0]?.tools.map((tool) => tool.name)).to.deep.equal(["scroll", "wait", "done", "fail"]);
    expect(page.performed).to.deep.equal([]);
    expect(outcome).to.deep.include({ finished: "done", text: "the page reads count 0", quote: "count 0" });
  });

  it("stops a loop at --max-steps, counting steps across instructions", async () => {
    const page = new CounterPage();
    const ctx = context(page, new ScriptedProvider([click, click, click, click]), 3);
    await runInstruction("act", "first", {
      ...ctx,
      provider: new ScriptedProvider([click, { name: "done", arguments: { evidence: "ok" } }]),
    });
    const stopped = await runInstruction("act", "second", ctx).catch((error: AgentStopped) => error);
    expect(stopped).to.be.instanceOf(AgentStopped);
    expect((stopped as AgentStopped).reason).to.equal("max_steps");
    expect((stopped as AgentStopped).message).to.equal(
      'stopped at the --max-steps cap of 3 steps before "second" was finished',
    );
    expect(ctx.budget.used).to.equal(3);
  });

  it("stops when the same action leaves the page unchanged three times", async () => {
    const page = new CounterPage(true);
    const ctx = context(page, new ScriptedProvider([click, click, click, click, click]));
    const stopped = await runInstruction("act", "load more", ctx).catch((error: AgentStopped) => error);
    expect((stopped as AgentStopped).reason).to.equal("stall");
    expect((stopped as AgentStopped).message).to.equal(
      'no progress: click {"index":1} was repeated 3 times and the page did not change',
    );
    expect(page.performed).to.have.length(3);
  });

  it("starts no step after the deadline", async () => {
    const page = new CounterPage();
    const ctx = { ...context(page, new ScriptedProvider([click])), deadline: Date.now() - 1 };
    const stopped = await runInstruction("act", "late", ctx).catch((error: AgentStopped) => error);
    expect((stopped as AgentStopped).reason).to.equal("timeout");
    expect(page.performed).to.deep.equal([]);
  });

  describe("skills and lessons", () => {
    const skill = (name: string, keywords: string[], extra = "") =>
      parseSkill(
        `---\nname: ${name}\nversion: 1.0.0\ndescription: A skill used by the agent loop tests.\nkeywords: [${keywords.join(", ")}]\n${extra}---\nAdvice of ${name}.\n`,
        `${name}.md`,
        "bundled",
      );
    const skills = [
      skill("counting", ["more"]),
      skill("forms", ["password"]),
      skill("checking", [], "applies_to: [check]\nalways: true\n"),
    ];

    it("puts the skills the rule selects into the system prompt, and offers record_lesson", async () => {
      const provider = new ScriptedProvider([{ name: "done", arguments: { evidence: "ok" } }]);
      const lessons: LessonDraft[] = [];
      await runInstruction("act", "press the button", {
        ...context(new CounterPage(), provider),
        skills,
        onLesson: (lesson) => lessons.push(lesson),
      });
      const request = provider.requests[0] as ModelRequest;
      // "More" is an element label on the page: counting applies; forms and the check-only skill do not.
      expect(request.system).to.include('<skill name="counting">\nAdvice of counting.\n</skill>');
      expect(request.system).not.to.include("forms");
      expect(request.system).not.to.include("checking");
      expect(request.tools.map((tool) => tool.name)).to.include("record_lesson");

      const checker = new ScriptedProvider([{ name: "done", arguments: { evidence: "ok" } }]);
      await runInstruction("check", "count is 0", { ...context(new CounterPage(), checker), skills });
      expect(checker.requests[0]?.system).to.include('<skill name="checking">');
      // Without a lesson sink the tool is not offered.
      expect(checker.requests[0]?.tools.map((tool) => tool.name)).not.to.include("record_lesson");
    });

    it("records the agent's lesson under the skill it names, without touching the page", async () => {
      const page = new CounterPage();
      const provider = new ScriptedProvider([
        { name: "record_lesson", arguments: { lesson: "  The More button counts.  ", skill: "counting" } },
        { name: "record_lesson", arguments: { lesson: "Unlisted skills fall back.", skill: "nonexistent" } },
        { name: "done", arguments: { quote: "count 0", evidence: "ok" } },
      ]);
      const lessons: LessonDraft[] = [];
      const ctx = { ...context(page, provider), skills, onLesson: (lesson: LessonDraft) => lessons.push(lesson) };
      // A check, which may finish without an action: a lesson is no action.
      await runInstruction("check", "more counts", ctx);
      expect(page.performed).to.deep.equal([]);
      expect(ctx.steps.map((step) => step.evidence)).to.deep.equal(["lesson recorded", "lesson recorded", "ok"]);
      expect(lessons).to.deep.equal([
        {
          instruction: "more counts",
          source: "agent",
          skill: "counting",
          lesson: "The More button counts.",
          kind: "lesson",
          url: "http://test/",
          step: 1,
        },
        {
          instruction: "more counts",
          source: "agent",
          skill: "counting",
          lesson: "Unlisted skills fall back.",
          kind: "lesson",
          url: "http://test/",
          step: 2,
        },
      ]);
    });

    it("records which element carried an instruction out after failed attempts", async () => {
      const provider = new ScriptedProvider([
        { name: "click", arguments: { index: 7 } },
        click,
        { name: "done", arguments: { evidence: "count 1" } },
      ]);
      const lessons: LessonDraft[] = [];
      await runInstruction("act", "add one", {
        ...context(new CounterPage(), provider),
        skills,
        onLesson: (lesson) => lessons.push(lesson),
      });
      expect(lessons).to.deep.equal([
        {
          instruction: "add one",
          source: "runner",
          skill: "counting",
          lesson: '"add one" was carried out by: click button "More" (after 1 failed attempt)',
          kind: "resolved_after_retries",
          url: "http://test/",
          step: 3,
        },
      ]);
    });

    it("records the cause of a stall before stopping", async () => {
      const lessons: LessonDraft[] = [];
      const stopped = await runInstruction("act", "load more", {
        ...context(new CounterPage(true), new ScriptedProvider([click, click, click])),
        onLesson: (lesson) => lessons.push(lesson),
      }).catch((error: AgentStopped) => error);
      expect((stopped as AgentStopped).reason).to.equal("stall");
      expect(lessons).to.have.length(1);
      expect(lessons[0]).to.deep.include({
        kind: "stall",
        skill: null,
        lesson:
          '"load more" stalled: click button "More" was repeated 3 times and the page did not change; wait for the page or choose another element',
      });
    });

    it("records nothing when the first attempt works", async () => {
      const lessons: LessonDraft[] = [];
      await runInstruction("act", "add one", {
        ...context(new CounterPage(), new ScriptedProvider([click, { name: "done", arguments: { evidence: "1" } }])),
        onLesson: (lesson) => lessons.push(lesson),
      });
      expect(lessons).to.deep.equal([]);
    });
  });
});

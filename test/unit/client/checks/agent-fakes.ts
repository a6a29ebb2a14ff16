/** A small sign-in page and a scripted model for the agent's unit tests. */
import type { AgentPage, LoopContext, StepRecord } from "../../../../client/checks/agent/agent-loop.js";
import type { LessonDraft } from "../../../../client/checks/agent/runner-lessons.js";
import type { RawElement, RawSnapshot } from "../../../../client/checks/agent/snapshot-script.js";
import type { ModelProvider, ModelRequest, ModelResponse } from "../../../../client/checks/providers/model-provider.js";

export type ScriptedCall = { name: string; arguments: Record<string, unknown> };

const field = (index: number, label: string, type: string | null, tag = "input"): RawElement => ({
  index,
  tag,
  role: null,
  type,
  label,
  value: null,
  checked: null,
  disabled: false,
  href: null,
});

/**
 * Username [1], Password [2], "Sign in" [3]; signing in as ada / lovelace greets her. Like the
 * real snapshot script, it never shows a password field's value.
 */
export class SignInPage implements AgentPage {
  readonly values = new Map<number, string>();
  /** Each perform: tool, the arguments as the browser received them, and the element's description. */
  readonly performed: { tool: string; args: Record<string, unknown>; element: string | null | undefined }[] = [];
  signedIn = false;
  extraText = "";

  async snapshot(): Promise<RawSnapshot> {
    if (this.signedIn) {
      return {
        url: "http://shop/",
        title: "Dashboard",
        elements: [{ ...field(1, "Sign out", null, "a"), href: "/login" }],
        elementsTruncated: false,
        text: `Welcome,   ADA\nYou are signed in.${this.extraText}`,
        textTruncated: false,
      };
    }
    const elements = [
      field(1, "Username", null),
      field(2, "Password", "password"),
      field(3, "Sign in", "submit", "button"),
    ];
    const username = elements[0] as RawElement;
    username.value = this.values.get(1) ?? "";
    return {
      url: "http://shop/login",
      title: "Sign in",
      elements,
      elementsTruncated: false,
      text: `Sign in\nUsername\nPassword${this.extraText}`,
      textTruncated: false,
    };
  }

  async perform(tool: string, args: Record<string, unknown>, element?: string | null): Promise<string> {
    this.performed.push({ tool, args, element });
    const index = Number(args.index);
    if ((tool === "click" || tool === "type") && (this.signedIn ? index !== 1 : index < 1 || index > 3)) {
      throw new Error(`there is no element [${args.index}] in the latest snapshot`);
    }
    if (tool === "type") {
      this.values.set(index, String(args.text));
      return `typed ${JSON.stringify(args.text)} into ${element}`;
    }
    if (tool === "click" && index === 3 && !this.signedIn) {
      this.signedIn = this.values.get(1) === "ada" && this.values.get(2) === "lovelace";
    }
    return `${tool === "click" ? "clicked" : tool} ${element}`;
  }
}

/** Answers each turn with the next scripted call, and keeps every request it saw. */
export class ScriptedModel implements ModelProvider {
  readonly name = "scripted";
  readonly model = "script";
  requests: ModelRequest[] = [];
  constructor(private readonly calls: ScriptedCall[]) {}
  async complete(request: ModelRequest): Promise<ModelResponse> {
    this.requests.push(request);
    const call = this.calls[this.requests.length - 1] ?? { name: "fail", arguments: { reason: "script ended" } };
    return {
      text: null,
      toolCalls: [{ id: `c${this.requests.length}`, ...call }],
      usage: { inputTokens: 1, outputTokens: 1 },
    };
  }
  /** Everything the model was sent, as one text. */
  get seen(): string {
    return JSON.stringify(this.requests);
  }
}

export function loopContext(
  page: AgentPage,
  provider: ModelProvider,
): Omit<LoopContext, "page"> & { page: AgentPage; steps: StepRecord[]; lessons: LessonDraft[] } {
  const steps: StepRecord[] = [];
  const lessons: LessonDraft[] = [];
  return {
    steps,
    lessons,
    test: "t",
    provider,
    page,
    budget: { used: 0, max: null },
    deadline: Date.now() + 60_000,
    usage: { inputTokens: 0, outputTokens: 0 },
    onStep: async (step) => {
      step.index = steps.length + 1;
      steps.push(step);
    },
    onLesson: (lesson) => lessons.push(lesson),
  };
}

export const call = (name: string, args: Record<string, unknown> = {}): ScriptedCall => ({ name, arguments: args });

/** The conversation the model is sent on each turn of an instruction. Pure. */
import type { ModelMessage } from "../providers/model-provider.js";
import type { InstructionKind } from "./agent-loop.js";
import { firstMessage } from "./prompts.js";

export interface PastStep {
  /** Null when the model answered without calling a tool. */
  call: { id: string; name: string; arguments: Record<string, unknown> } | null;
  text: string | null;
  result: string;
}

/** The instruction with the first page, then each call and its result; the latest page follows the last result. */
export function conversation(
  kind: InstructionKind,
  instruction: string,
  page: string,
  past: PastStep[],
): ModelMessage[] {
  const messages: ModelMessage[] = [
    {
      role: "user",
      content: firstMessage(
        kind,
        instruction,
        past.length === 0 ? page : "(the current page is in the latest tool result)",
      ),
    },
  ];
  past.forEach((step, position) => {
    const content = position === past.length - 1 ? `${step.result}\n\n${page}` : step.result;
    if (step.call === null) {
      messages.push({ role: "assistant", content: step.text ?? "", toolCalls: [] });
      messages.push({ role: "user", content });
      return;
    }
    messages.push({ role: "assistant", content: step.text, toolCalls: [step.call] });
    messages.push({ role: "tool", toolCallId: step.call.id, content });
  });
  return messages;
}

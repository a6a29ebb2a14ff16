/**
 * `mock`: a scripted provider that replays a transcript file (schemas/checks/mock-transcript.json)
 * so suites and CI wiring can be tested without a model or a key. Stateless: the number of
 * assistant turns already in the conversation says which call comes next.
 */
import { readFileSync } from "node:fs";
import { LifecycleError } from "../../lifecycle/lifecycle-error.js";
import { schemaValidator } from "../../validation/schema-validator.js";
import type { ModelProvider, ModelRequest, ModelResponse, SnapshotElementRef, ToolCall } from "./model-provider.js";

export interface TranscriptCall {
  tool: string;
  args?: Record<string, unknown>;
  text?: string;
}

export interface TranscriptEntry {
  test?: string;
  instruction?: string;
  calls: TranscriptCall[];
}

export interface Transcript {
  schema_version: "obs.mock-transcript/v1";
  entries: TranscriptEntry[];
}

export function readTranscript(path: string): Transcript {
  let value: unknown;
  try {
    value = JSON.parse(readFileSync(path, "utf8"));
  } catch (error) {
    throw new LifecycleError("invalid_argument", `mock transcript ${path} cannot be read: ${(error as Error).message}`);
  }
  const validate = schemaValidator("checks", "mock-transcript.json");
  if (!validate(value)) {
    const problems = (validate.errors ?? []).map((error) => `${error.instancePath || "(top)"} ${error.message}`);
    throw new LifecycleError("invalid_argument", `mock transcript ${path} is invalid: ${problems.join("; ")}`);
  }
  return value as Transcript;
}

/** The element a transcript names by label: an exact label first, else the first containing it. */
export function resolveTarget(target: string, elements: SnapshotElementRef[]): number {
  const wanted = target.trim().toLowerCase();
  const exact = elements.find((element) => element.label.trim().toLowerCase() === wanted);
  const partial = elements.find((element) => element.label.toLowerCase().includes(wanted));
  return (exact ?? partial)?.index ?? -1;
}

function estimateTokens(text: string): number {
  return Math.ceil(text.length / 4);
}

export class MockProvider implements ModelProvider {
  readonly name = "mock";
  constructor(
    readonly model: string,
    private readonly transcript: Transcript,
  ) {}

  async complete(request: ModelRequest): Promise<ModelResponse> {
    const { test, instruction, elements } = request.context;
    const turn = request.messages.filter((message) => message.role === "assistant").length;
    const entry = this.transcript.entries.find(
      (candidate) =>
        (candidate.test === undefined || candidate.test === test) &&
        (candidate.instruction === undefined ||
          instruction.toLowerCase().includes(candidate.instruction.toLowerCase())),
    );
    const scripted = entry?.calls[turn];
    const call: TranscriptCall = scripted ?? {
      tool: "fail",
      args: {
        reason: entry
          ? `the mock transcript has no call ${turn + 1} for "${instruction}" in test "${test}"`
          : `the mock transcript has no entry for "${instruction}" in test "${test}"`,
      },
    };
    const args: Record<string, unknown> = { ...(call.args ?? {}) };
    if (typeof args.target === "string") {
      args.index = resolveTarget(args.target, elements);
      delete args.target;
    }
    const toolCall: ToolCall = { id: `mock-${turn + 1}`, name: call.tool, arguments: args };
    const promptText =
      request.system +
      request.messages
        .map((message) => JSON.stringify(message, (key, value) => (key === "image" ? undefined : value)))
        .join("");
    return {
      text: call.text ?? null,
      toolCalls: [toolCall],
      usage: { inputTokens: estimateTokens(promptText), outputTokens: estimateTokens(JSON.stringify(toolCall)) },
    };
  }
}

/** OpenAI-compatible chat completions with tool calls (OpenAI, or a local server via OPENAI_BASE_URL). */
import {
  type ModelMessage,
  type ModelProvider,
  type ModelRequest,
  type ModelResponse,
  ProviderError,
  type ToolCall,
} from "./model-provider.js";
import { postModelJson, type RetryPolicy } from "./provider-http.js";

export const OPENAI_DEFAULT_BASE_URL = "https://api.openai.com/v1";

interface WireToolCall {
  id: string;
  type: "function";
  function: { name: string; arguments: string };
}

export function openAiMessages(system: string, messages: ModelMessage[]): object[] {
  return [
    { role: "system", content: system },
    ...messages.map((message) => {
      if (message.role === "user") return { role: "user", content: message.content };
      if (message.role === "tool") return { role: "tool", tool_call_id: message.toolCallId, content: message.content };
      return {
        role: "assistant",
        content: message.content,
        ...(message.toolCalls.length
          ? {
              tool_calls: message.toolCalls.map(
                (call): WireToolCall => ({
                  id: call.id,
                  type: "function",
                  function: { name: call.name, arguments: JSON.stringify(call.arguments) },
                }),
              ),
            }
          : {}),
      };
    }),
  ];
}

export function openAiRequestBody(model: string, request: ModelRequest): object {
  return {
    model,
    messages: openAiMessages(request.system, request.messages),
    tools: request.tools.map((tool) => ({
      type: "function",
      function: { name: tool.name, description: tool.description, parameters: tool.parameters },
    })),
    tool_choice: "auto",
  };
}

function parseArguments(text: string | undefined): Record<string, unknown> {
  if (!text) return {};
  try {
    const value = JSON.parse(text) as unknown;
    return value && typeof value === "object" && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

export function openAiResponse(body: unknown): ModelResponse {
  const answer = body as {
    choices?: { message?: { content?: string | null; tool_calls?: WireToolCall[] } }[];
    usage?: { prompt_tokens?: number; completion_tokens?: number };
  };
  const message = answer.choices?.[0]?.message;
  if (!message) throw new ProviderError("the chat completion has no choices[0].message");
  const toolCalls: ToolCall[] = (message.tool_calls ?? []).map((call) => ({
    id: call.id,
    name: call.function?.name ?? "",
    arguments: parseArguments(call.function?.arguments),
  }));
  return {
    text: message.content ?? null,
    toolCalls,
    usage: { inputTokens: answer.usage?.prompt_tokens ?? 0, outputTokens: answer.usage?.completion_tokens ?? 0 },
  };
}

export class OpenAiProvider implements ModelProvider {
  readonly name = "openai";
  constructor(
    readonly model: string,
    private readonly apiKey: string | null,
    private readonly baseUrl: string = OPENAI_DEFAULT_BASE_URL,
    private readonly retry?: RetryPolicy,
  ) {}

  async complete(request: ModelRequest): Promise<ModelResponse> {
    const body = await postModelJson(
      `${this.baseUrl.replace(/\/+$/, "")}/chat/completions`,
      this.apiKey ? { authorization: `Bearer ${this.apiKey}` } : {},
      openAiRequestBody(this.model, request),
      this.retry,
    );
    return openAiResponse(body);
  }
}

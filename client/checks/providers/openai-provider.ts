/** OpenAI-compatible chat completions with tool calls (OpenAI, or a local server via OPENAI_BASE_URL). */
import {
  type ModelImage,
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

/** A user message's content with a screenshot (--vision): its text, then the image as a data URL. */
function withImage(text: string, image: ModelImage): object[] {
  return [
    { type: "text", text },
    { type: "image_url", image_url: { url: `data:${image.mediaType};base64,${image.data}` } },
  ];
}

/** Says what the user message after a tool result is: its screenshot. */
export const TOOL_SCREENSHOT_TEXT = "A screenshot of the page as the tool result above describes it.";

export function openAiMessages(system: string, messages: ModelMessage[]): object[] {
  return [
    { role: "system", content: system },
    ...messages.flatMap((message): object[] => {
      if (message.role === "user") {
        return [{ role: "user", content: message.image ? withImage(message.content, message.image) : message.content }];
      }
      if (message.role === "tool") {
        const result = { role: "tool", tool_call_id: message.toolCallId, content: message.content };
        // A tool message carries text only: its screenshot follows in a user message.
        if (!message.image) return [result];
        return [result, { role: "user", content: withImage(TOOL_SCREENSHOT_TEXT, message.image) }];
      }
      return [
        {
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
        },
      ];
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

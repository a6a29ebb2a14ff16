/** Anthropic messages API with tool use. */
import {
  type ModelImage,
  type ModelMessage,
  type ModelProvider,
  type ModelRequest,
  type ModelResponse,
  ProviderError,
} from "./model-provider.js";
import { postModelJson, type RetryPolicy } from "./provider-http.js";

export const ANTHROPIC_DEFAULT_BASE_URL = "https://api.anthropic.com";
export const ANTHROPIC_VERSION = "2023-06-01";
const MAX_TOKENS = 1024;

type TextBlock = { type: "text"; text: string };
type ImageBlock = { type: "image"; source: { type: "base64"; media_type: ModelImage["mediaType"]; data: string } };

type Block =
  | TextBlock
  | ImageBlock
  | { type: "tool_use"; id: string; name: string; input: Record<string, unknown> }
  /** A result with a screenshot (--vision) is a list of blocks: its text, then the image. */
  | { type: "tool_result"; tool_use_id: string; content: string | (TextBlock | ImageBlock)[] };

function imageBlock(image: ModelImage): ImageBlock {
  return { type: "image", source: { type: "base64", media_type: image.mediaType, data: image.data } };
}

interface WireMessage {
  role: "user" | "assistant";
  content: Block[];
}

/** Tool results travel as user messages; consecutive user turns are merged, as the API requires. */
export function anthropicMessages(messages: ModelMessage[]): WireMessage[] {
  const wire: WireMessage[] = [];
  const push = (role: WireMessage["role"], blocks: Block[]) => {
    const last = wire.at(-1);
    if (last && last.role === role) last.content.push(...blocks);
    else wire.push({ role, content: blocks });
  };
  for (const message of messages) {
    if (message.role === "user") {
      const text: TextBlock = { type: "text", text: message.content };
      push("user", message.image ? [text, imageBlock(message.image)] : [text]);
    } else if (message.role === "tool") {
      const content = message.image
        ? [{ type: "text" as const, text: message.content }, imageBlock(message.image)]
        : message.content;
      push("user", [{ type: "tool_result", tool_use_id: message.toolCallId, content }]);
    } else {
      push("assistant", [
        ...(message.content ? [{ type: "text" as const, text: message.content }] : []),
        ...message.toolCalls.map((call) => ({
          type: "tool_use" as const,
          id: call.id,
          name: call.name,
          input: call.arguments,
        })),
      ]);
    }
  }
  return wire;
}

export function anthropicRequestBody(model: string, request: ModelRequest): object {
  return {
    model,
    max_tokens: MAX_TOKENS,
    system: request.system,
    messages: anthropicMessages(request.messages),
    tools: request.tools.map((tool) => ({
      name: tool.name,
      description: tool.description,
      input_schema: tool.parameters,
    })),
  };
}

export function anthropicResponse(body: unknown): ModelResponse {
  const answer = body as {
    content?: Block[];
    usage?: { input_tokens?: number; output_tokens?: number };
  };
  if (!Array.isArray(answer.content)) throw new ProviderError("the message has no content array");
  const text = answer.content
    .filter((block): block is Extract<Block, { type: "text" }> => block.type === "text")
    .map((block) => block.text)
    .join("\n");
  return {
    text: text === "" ? null : text,
    toolCalls: answer.content
      .filter((block): block is Extract<Block, { type: "tool_use" }> => block.type === "tool_use")
      .map((block) => ({ id: block.id, name: block.name, arguments: block.input ?? {} })),
    usage: { inputTokens: answer.usage?.input_tokens ?? 0, outputTokens: answer.usage?.output_tokens ?? 0 },
  };
}

export class AnthropicProvider implements ModelProvider {
  readonly name = "anthropic";
  constructor(
    readonly model: string,
    private readonly apiKey: string,
    private readonly baseUrl: string = ANTHROPIC_DEFAULT_BASE_URL,
    private readonly retry?: RetryPolicy,
  ) {}

  async complete(request: ModelRequest): Promise<ModelResponse> {
    const body = await postModelJson(
      `${this.baseUrl.replace(/\/+$/, "")}/v1/messages`,
      { "x-api-key": this.apiKey, "anthropic-version": ANTHROPIC_VERSION },
      anthropicRequestBody(this.model, request),
      this.retry,
    );
    return anthropicResponse(body);
  }
}

/**
 * The one interface the agent loop talks to. Each provider maps this neutral conversation to
 * its wire protocol and back.
 */

/** A tool the model may call; `parameters` is a JSON Schema object. */
export interface ToolDefinition {
  name: string;
  description: string;
  parameters: { type: "object"; properties: Record<string, object>; required?: string[] };
}

export interface ToolCall {
  id: string;
  name: string;
  arguments: Record<string, unknown>;
}

/** A screenshot sent with a message (`--vision`). */
export interface ModelImage {
  mediaType: "image/png";
  /** The image's bytes, base64. */
  data: string;
}

export type ModelMessage =
  | { role: "user"; content: string; image?: ModelImage }
  | { role: "assistant"; content: string | null; toolCalls: ToolCall[] }
  | { role: "tool"; toolCallId: string; content: string; image?: ModelImage };

/** An element of the page as the agent indexed it; the mock provider resolves targets by it. */
export interface SnapshotElementRef {
  index: number;
  label: string;
}

export interface ModelRequest {
  system: string;
  messages: ModelMessage[];
  tools: ToolDefinition[];
  /** What the request is about, for providers that replay by it (the mock). */
  context: { test: string; instruction: string; elements: SnapshotElementRef[] };
}

export interface TokenUsage {
  inputTokens: number;
  outputTokens: number;
}

export interface ModelResponse {
  text: string | null;
  toolCalls: ToolCall[];
  usage: TokenUsage;
}

export interface ModelProvider {
  readonly name: string;
  readonly model: string;
  complete(request: ModelRequest): Promise<ModelResponse>;
}

/** The provider refused or failed in a way retrying will not fix; the run stops. */
export class ProviderError extends Error {
  override name = "ProviderError";
  constructor(
    message: string,
    readonly status: number | null = null,
  ) {
    super(message);
  }
}

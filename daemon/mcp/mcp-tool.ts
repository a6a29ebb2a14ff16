/**
 * What an MCP tool is in obs: a name, a description written for a model, JSON Schemas for its
 * input and output, and a `run` that asks the query API (shared/query-api.ts) and answers
 * within a byte budget. The server (mcp-server.ts) lists and calls tools; it knows nothing of
 * any one tool, and a tool knows nothing of MCP's wire format or of where the API runs.
 */
import type { QueryApi } from "../../shared/query-api.js";

/**
 * A JSON Schema object as tools declare them: plain draft-07 keywords only. No `$ref`,
 * `$defs` or `$schema` (Gemini CLI refuses tool schemas that carry them); a test holds every
 * tool to this.
 */
export interface ObjectSchema {
  type: "object";
  description?: string;
  properties: Record<string, unknown>;
  required?: string[];
  additionalProperties?: boolean;
}

/** A tool call worth making next, with its arguments: what `next` and `continuation` hold. */
export interface NextCall {
  tool: string;
  arguments: Record<string, unknown>;
  /** Why, in a few words a model can act on ("the slowest span's attributes"). */
  why: string;
}

/**
 * The fields every tool's structured answer ends with. `truncated` is true when anything was
 * left out to stay within the item caps or `max_bytes`; `continuation` is then the call that
 * fetches the rest (the same tool with a cursor, or a narrower call). `next` holds the two or
 * three calls an agent would most likely make next, most useful first.
 */
export interface AnswerTail {
  truncated: boolean;
  continuation?: NextCall;
  next: NextCall[];
}

export interface ToolContext {
  api: QueryApi;
  /**
   * The collector the API answers for, as a URL (`http://127.0.0.1:27686`): the trace tools
   * link their answers to its web UI (shared/ui-links.ts).
   */
  baseUrl: string;
  /** The serialized structured answer's budget in bytes (the call's `max_bytes`, capped). */
  maxBytes: number;
}

/** A tool's answer: the structured content, and a short summary line for the text content. */
export interface ToolAnswer<R extends AnswerTail = AnswerTail> {
  structured: R;
  /** One or two sentences: what was found, and what was left out. */
  summary: string;
}

export interface McpTool<A = Record<string, unknown>, R extends AnswerTail = AnswerTail> {
  /** snake_case, as MCP clients show it: `search_traces`. */
  name: string;
  /** A few words for a person choosing tools. */
  title: string;
  /** For a model: what it answers, when to use it, what it costs, what to call next. */
  description: string;
  /** Built with toolInput() (budget.ts), so every tool takes `max_bytes`. */
  inputSchema: ObjectSchema;
  /** Built with toolOutput() (budget.ts), so every answer declares the AnswerTail fields. */
  outputSchema: ObjectSchema;
  /**
   * Answers arguments already validated against inputSchema (defaults not applied: a missing
   * optional argument is absent). The structured answer must validate against outputSchema and
   * serialize within ctx.maxBytes. Rejects with the QueryApi's errors (invalid_argument,
   * not_found, ...) or a ToolInputError; the server turns every rejection into a tool error.
   */
  run(args: A, ctx: ToolContext): Promise<ToolAnswer<R>>;
}

/** Arguments a tool refuses beyond what its schema says (two ids that must differ, ...). */
export class ToolInputError extends Error {
  override name = "ToolInputError";
  readonly code = "invalid_argument";
}

/** Any tool, for lists of tools of different argument and answer types. */
// biome-ignore lint/suspicious/noExplicitAny: a list holds tools of every argument type
export type AnyMcpTool = McpTool<any, any>;

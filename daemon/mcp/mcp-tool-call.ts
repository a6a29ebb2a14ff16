/**
 * One `tools/call`, from arguments to the MCP result: arguments checked against the tool's
 * inputSchema, the tool run within its byte budget, and the answer (or the failure) rendered
 * as the result MCP clients read. Knows tools and the QueryApi's error codes; knows nothing of
 * transports.
 */

import { isDeepStrictEqual } from "node:util";
import { Ajv, type ErrorObject, type ValidateFunction } from "ajv";
import addFormatsModule from "ajv-formats";
import { type QueryApi, queryApiErrorCode } from "../../shared/query-api.js";
import { budgetOf, cutLongStrings, jsonBytes, MAX_MAX_BYTES } from "./budget.js";
import type { AnyMcpTool } from "./mcp-tool.js";

const addFormats = addFormatsModule as unknown as { default: (ajv: Ajv) => Ajv };

/**
 * The most characters a result's text may hold: about 25,000 tokens (the size Claude Code
 * refuses) at the densest answers' rate, under two characters a token. max_bytes caps answers
 * at 32 KiB, so this never trips; if it does, the result is a tool error naming the bug
 * rather than a giant answer.
 */
export const MAX_RESULT_TEXT_CHARS = 45_000;

/** A `tools/call` result as MCP carries it. */
export interface ToolCallResult {
  [key: string]: unknown;
  content: { type: "text"; text: string }[];
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
}

// Defaults are not applied: a tool sees a missing optional argument as absent (McpTool.run).
const ajv = new Ajv({ allErrors: true, strict: false, useDefaults: false });
addFormats.default(ajv);
/** Compiled once per schema, not once per call: obsd builds a server for every /mcp request. */
const validators = new WeakMap<object, ValidateFunction>();

function validatorOf(schema: object): ValidateFunction {
  let validate = validators.get(schema);
  if (!validate) {
    validate = ajv.compile(schema);
    validators.set(schema, validate);
  }
  return validate;
}

/** One ajv error as a sentence that names the argument and the rule it breaks. */
function problemOf(error: ErrorObject, tool: AnyMcpTool): string {
  const name = error.instancePath.slice(1).replaceAll("/", ".");
  const params = error.params as Record<string, unknown>;
  switch (error.keyword) {
    case "required":
      return `missing required argument "${String(params.missingProperty)}"`;
    case "additionalProperties":
      return `unknown argument "${String(params.additionalProperty)}" (${tool.name} takes ${Object.keys(tool.inputSchema.properties).join(", ")})`;
    case "propertyNames":
      // The only rule on keys is ATTRIBUTES_PROPERTY's: not empty.
      return `argument "${name}" has an empty key`;
    case "enum":
      return `argument "${name}" must be one of ${(params.allowedValues as unknown[]).map((value) => JSON.stringify(value)).join(", ")}`;
    default:
      return name
        ? `argument "${name}" ${error.message ?? "is invalid"}`
        : `the arguments ${error.message ?? "are invalid"}`;
  }
}

/** The argument problems of `args` for `tool`, or undefined when they are valid. */
export function argumentProblems(tool: AnyMcpTool, args: unknown): string | undefined {
  const validate = validatorOf(tool.inputSchema);
  if (validate(args)) return undefined;
  // A key's own errors (ajv's propertyName) come with the propertyNames error that says it.
  return (validate.errors ?? [])
    .filter((error) => error.propertyName === undefined)
    .map((error) => problemOf(error, tool))
    .join("; ");
}

/** The tools that name a metric: what they do not find is a metric, not an id. */
const METRIC_TOOLS = new Set(["query_metric", "describe_metric"]);

/**
 * What to do about a failure of `tool`, by the error code it carries: a QueryApi code, or one
 * of finding the collector (`obs mcp` finds it for every call, from its own flags and
 * environment, which the MCP client set when it started it).
 */
function hintOf(code: string | undefined, tool: string): string | undefined {
  switch (code) {
    case "collector_unavailable":
      return "No obs collector is running there; start one with `obs monitor start` in the project folder, then call the tool again.";
    case "invalid_config":
      return "That setting is `obs mcp`'s own: correct it (or give --base-url) where the MCP client starts `obs mcp`, in its arguments or environment, then restart the MCP server.";
    case "collector_ambiguous":
      return "Name the collector in `obs mcp`'s arguments (--port or --base-url) where the MCP client starts it, then restart the MCP server.";
    case "not_found":
      return METRIC_TOOLS.has(tool)
        ? "No such metric, or none of its series in the window or service asked for; list_metrics lists the metrics with their types, services and last times."
        : "Nothing stored has that id (it may have aged out of retention); find current ids with search_traces or search_spans.";
    case "invalid_argument":
      return undefined;
    case "timeout":
      return "The collector did not answer in time; ask for a shorter lookback or fewer items.";
    default:
      return "The collector could not answer from its store; `obs status` shows its health.";
  }
}

/** A tool error result: text only (see callMcpTool on why it has no structuredContent). */
export function toolError(text: string): ToolCallResult {
  return { content: [{ type: "text", text }], isError: true };
}

/** The text of a failed call: the error's own message, and what to do about it. */
export function failureText(tool: string, error: unknown): string {
  const code = queryApiErrorCode(error);
  const message = error instanceof Error ? error.message : String(error);
  if (code === undefined) return `${tool} failed: ${message}`;
  // Discovery's own message already says how to start a collector; the hint would repeat it.
  const hint = message.includes("obs monitor start") ? undefined : hintOf(code, tool);
  return hint ? `${message}\n\n${hint}` : message;
}

/** Ever shorter string cuts tried on an answer over its budget, before refusing it. */
const FALLBACK_STRING_CUTS = [500, 120, 40];

/**
 * The answer within `maxBytes`. Tools fit their answers themselves; this is the backstop for
 * what they cannot foresee (a header of very long service names, keys of thousands of
 * characters): strings are cut ever shorter, except in `continuation` and `next`, whose
 * arguments (cursors) must stay whole. Undefined when even that does not fit.
 */
function withinBudget(structured: Record<string, unknown>, maxBytes: number): Record<string, unknown> | undefined {
  if (jsonBytes(structured) <= maxBytes) return structured;
  const { continuation, next, ...body } = structured;
  for (const maxChars of FALLBACK_STRING_CUTS) {
    const cut = { ...cutLongStrings(body, maxChars), truncated: true, ...(continuation ? { continuation } : {}), next };
    if (jsonBytes(cut) <= maxBytes) return cut;
  }
  return undefined;
}

/**
 * Arguments as they select a page, so a call and the continuation a tool rebuilt from it
 * compare equal when they ask the same: hex ids lowercased, id lists deduplicated and sorted,
 * an `offset` of 0 dropped (the same as none).
 */
function canonical(args: Record<string, unknown>): Record<string, unknown> {
  const hex = (value: unknown) =>
    typeof value === "string" && /^[0-9a-fA-F]{16,32}$/.test(value) ? value.toLowerCase() : value;
  const entries = Object.entries(args)
    .filter(([key, value]) => value !== undefined && !(key === "offset" && value === 0))
    .map(([key, value]) => [key, Array.isArray(value) ? [...new Set(value.map(hex))].sort() : hex(value)]);
  return Object.fromEntries(entries.sort(([a], [b]) => String(a).localeCompare(String(b))));
}

/**
 * The answer without a continuation that repeats the very call it answers (a tool that could
 * not fit one item offers the same page again): the continuation asks for the largest
 * max_bytes instead, or, at the largest already, goes, leaving `truncated` to say so.
 */
function unrepeated(
  structured: Record<string, unknown>,
  toolName: string,
  args: Record<string, unknown>,
  maxBytes: number,
): Record<string, unknown> {
  const continuation = structured.continuation as { tool?: string; arguments?: Record<string, unknown> } | undefined;
  if (continuation?.tool !== toolName || !isDeepStrictEqual(canonical(continuation.arguments ?? {}), canonical(args)))
    return structured;
  if (maxBytes < MAX_MAX_BYTES) {
    return {
      ...structured,
      continuation: {
        ...continuation,
        arguments: { ...args, max_bytes: MAX_MAX_BYTES },
        why: "the same page with the largest max_bytes: not even one item fitted this budget",
      },
    };
  }
  const { continuation: _repeated, ...rest } = structured;
  return { ...rest, truncated: true };
}

/**
 * Calls `tool` with `args` and renders the result. A success carries the structured answer
 * and a text block (the summary, a blank line, the answer's JSON) for clients that read only
 * text. A failure is a tool error (isError) with text only: MCP asks for structuredContent
 * wherever an outputSchema is declared, but an error has no answer to validate, and the SDK's
 * own client validates structuredContent whenever present and excuses its absence only when
 * isError is set, so an error result omits it.
 */
export async function callMcpTool(
  tool: AnyMcpTool,
  args: Record<string, unknown>,
  target: () => Promise<{ api: QueryApi; baseUrl: string }>,
): Promise<ToolCallResult> {
  const problems = argumentProblems(tool, args);
  if (problems) return toolError(`Invalid arguments for ${tool.name}: ${problems}.`);
  const maxBytes = budgetOf(args.max_bytes);
  let answer: { structured: Record<string, unknown>; summary: string };
  try {
    const { api, baseUrl } = await target();
    answer = await tool.run(args, { api, baseUrl, maxBytes });
  } catch (error) {
    if (queryApiErrorCode(error) === undefined)
      console.error(`obs mcp: ${tool.name}: ${(error as Error)?.stack ?? error}`);
    return toolError(failureText(tool.name, error));
  }
  const whole = unrepeated(answer.structured, tool.name, args, maxBytes);
  const held = withinBudget(whole, maxBytes);
  if (held === undefined) {
    return toolError(
      `${tool.name} could not fit its answer in max_bytes ${maxBytes}, even with its strings cut short. Ask again with a larger max_bytes (at most ${MAX_MAX_BYTES}) or narrower arguments.`,
    );
  }
  const cut = held !== whole;
  answer = { structured: held, summary: cut ? `${answer.summary} Strings cut to fit max_bytes.` : answer.summary };
  const text = `${answer.summary}\n\n${JSON.stringify(answer.structured)}`;
  if (text.length > MAX_RESULT_TEXT_CHARS) {
    return toolError(
      `${tool.name} built an answer of ${text.length} characters, over the ${MAX_RESULT_TEXT_CHARS} this server sends; max_bytes should have prevented that, so this is a bug in obs. Ask again with a smaller max_bytes or narrower arguments.`,
    );
  }
  return { content: [{ type: "text", text }], structuredContent: answer.structured };
}

/** The tools the model may call, and the check of their arguments. Pure. */
import type { ToolDefinition } from "../providers/model-provider.js";

export const ACTION_TOOLS = ["navigate", "click", "type", "select", "press", "scroll", "wait"] as const;
export const FINISH_TOOLS = ["done", "fail"] as const;
/** Not an action: the model writes down what it learned for the skills journal (docs/skills.md). */
export const LESSON_TOOL = "record_lesson" as const;
export type ActionTool = (typeof ACTION_TOOLS)[number];
export type FinishTool = (typeof FINISH_TOOLS)[number];
export type ToolName = ActionTool | FinishTool | typeof LESSON_TOOL;

/** A check looks and never changes the page. */
export const CHECK_TOOLS: ToolName[] = ["scroll", "wait", "done", "fail"];
export const ACT_TOOLS: ToolName[] = [...ACTION_TOOLS, "done", "fail"];

const index = { type: "integer", description: "The element's number in the snapshot, e.g. 3 for [3]" };

export const TOOL_DEFINITIONS: Record<ToolName, ToolDefinition> = {
  navigate: {
    name: "navigate",
    description: "Open a URL (relative URLs resolve against the base URL).",
    parameters: { type: "object", properties: { url: { type: "string" } }, required: ["url"] },
  },
  click: {
    name: "click",
    description: "Click an element of the snapshot.",
    parameters: { type: "object", properties: { index }, required: ["index"] },
  },
  type: {
    name: "type",
    description: "Type text into a field of the snapshot, replacing its content unless clear is false.",
    parameters: {
      type: "object",
      properties: { index, text: { type: "string" }, clear: { type: "boolean" } },
      required: ["index", "text"],
    },
  },
  select: {
    name: "select",
    description: "Choose an option of a select element by its visible text or value.",
    parameters: { type: "object", properties: { index, option: { type: "string" } }, required: ["index", "option"] },
  },
  press: {
    name: "press",
    description: "Press a key, e.g. Enter, Tab, Escape, ArrowDown.",
    parameters: { type: "object", properties: { key: { type: "string" } }, required: ["key"] },
  },
  scroll: {
    name: "scroll",
    description: "Scroll the page up or down, or bring an element into view.",
    parameters: {
      type: "object",
      properties: { direction: { type: "string", enum: ["up", "down"] }, index },
    },
  },
  wait: {
    name: "wait",
    description: "Wait until a text appears on the page (at most 10 s), or for a number of milliseconds.",
    parameters: {
      type: "object",
      properties: { text: { type: "string" }, ms: { type: "integer", minimum: 0, maximum: 10000 } },
    },
  },
  record_lesson: {
    name: "record_lesson",
    description:
      "Write down something this page taught you that would help next time (e.g. which control really submits a form, an overlay to close first). It does not change the page.",
    parameters: {
      type: "object",
      properties: {
        lesson: {
          type: "string",
          description: "One sentence, at most 500 characters, with no secrets or typed values",
        },
        skill: { type: "string", description: "The skill it belongs to, if one of the listed skills" },
      },
      required: ["lesson"],
    },
  },
  done: {
    name: "done",
    description:
      "Finish: the instruction is carried out, or (in a check) the assertion holds. Give what you observed as evidence.",
    parameters: { type: "object", properties: { evidence: { type: "string" } }, required: ["evidence"] },
  },
  fail: {
    name: "fail",
    description:
      "Finish: the instruction cannot be carried out, or (in a check) the assertion does not hold. Give the reason and what you observed.",
    parameters: { type: "object", properties: { reason: { type: "string" } }, required: ["reason"] },
  },
};

/**
 * A check's `done`: its verdict must quote the page, and the runner looks for the quote on the
 * page before it accepts the verdict (finish-rules.ts).
 */
export const CHECK_DONE: ToolDefinition = {
  name: "done",
  description:
    "Finish: the assertion holds. Quote the page text that shows it, copied exactly; a quote that is not on the page is refused.",
  parameters: {
    type: "object",
    properties: {
      quote: {
        type: "string",
        description: "Text copied exactly from the page that shows the assertion holds",
      },
      evidence: { type: "string", description: "What you observed, in your words (the quote when omitted)" },
    },
    required: ["quote"],
  },
};

/** The definition the model is given for `tool` in an act or a check. */
export function toolDefinition(kind: "act" | "check", tool: ToolName): ToolDefinition {
  return kind === "check" && tool === "done" ? CHECK_DONE : TOOL_DEFINITIONS[tool];
}

export function isToolName(name: string): name is ToolName {
  return name in TOOL_DEFINITIONS;
}

/** What is wrong with a call's arguments, or null. */
export function argumentProblem(
  tool: ToolName,
  args: Record<string, unknown>,
  kind: "act" | "check" = "act",
): string | null {
  const definition = toolDefinition(kind, tool);
  for (const key of definition.parameters.required ?? []) {
    if (args[key] === undefined || args[key] === null) return `${tool} needs "${key}"`;
  }
  if ("index" in args && args.index !== undefined && !Number.isInteger(args.index)) {
    return `${tool}: "index" must be an element number from the snapshot`;
  }
  for (const key of ["url", "text", "option", "key", "evidence", "quote", "reason", "lesson", "skill"]) {
    if (args[key] !== undefined && typeof args[key] !== "string") return `${tool}: "${key}" must be text`;
  }
  if (tool === "scroll" && args.direction === undefined && args.index === undefined) {
    return 'scroll needs "direction" (up or down) or "index"';
  }
  return null;
}

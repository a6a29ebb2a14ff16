/**
 * The prompts obs serves: ready-made instructions that string the tools together for a task an
 * agent is often given. Pure: each prompt is text built from its arguments.
 */

export interface PromptArgument {
  name: string;
  description: string;
  required: boolean;
}

export interface PromptMessage {
  role: "user";
  content: { type: "text"; text: string };
}

export interface McpPrompt {
  name: string;
  title: string;
  description: string;
  arguments: PromptArgument[];
  messages(args: Record<string, string | undefined>): PromptMessage[];
}

/** The steps of an error investigation, in the order the tools disclose detail. */
function investigationSteps(service: string | undefined): string {
  const inService = service ? ` in service "${service}"` : "";
  const serviceArgument = service ? `, service: "${service}"` : "";
  return [
    `Investigate the latest error${inService} recorded by obs, this project's local telemetry collector, with the obs tools:`,
    "",
    `1. list_services: which services sent telemetry recently${service ? `; check that "${service}" is among them` : ""}.`,
    `2. search_traces with { status: "error"${serviceArgument} }: the newest error traces. Take the newest one's trace_id. If there are none, widen the lookback (for example "1h", then "24h") and say so if there are still none.`,
    "3. get_trace_errors with { trace_id }: the error spans, their messages and exception events, and the logs correlated to them.",
    "4. get_trace_outline with { trace_id }: where the failing span sits in the request (its parents, and what it called before failing).",
    "5. get_span_details with { span_ids: [the failing span's id, and its parent's when the cause looks upstream] }: attributes, events with stack traces, links, resource.",
    "6. search_logs with { trace_id } (or the service and a piece of the error's text as body): what the service logged before it failed.",
    "",
    "Every answer ends with `next`: the calls most worth making, with their arguments; follow them when they fit. When an answer says truncated, its `continuation` fetches the rest.",
    "Then report what failed and where (service, operation, span id), the probable cause with its evidence (messages, attributes, log lines), and what to change in the code.",
  ].join("\n");
}

export const MCP_PROMPTS: readonly McpPrompt[] = [
  {
    name: "investigate_latest_error",
    title: "Investigate the latest error",
    description:
      "Walks through the newest error trace: find it, read its errors and their logs, see where it failed in the request, read the failing span's details, and report the cause.",
    arguments: [{ name: "service", description: "Only errors of this service (optional)", required: false }],
    messages: (args) => [
      { role: "user", content: { type: "text", text: investigationSteps(args.service || undefined) } },
    ],
  },
];

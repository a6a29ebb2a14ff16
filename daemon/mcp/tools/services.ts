/** `list_services`: where an investigation starts. */
import type { ServiceRecord } from "../../../shared/api-records.js";
import { fitItems, toolInput, toolOutput } from "../budget.js";
import type { AnswerTail, McpTool } from "../mcp-tool.js";
import { LOOKBACK_PROPERTY } from "./common-inputs.js";

interface ListServicesArgs {
  lookback?: string;
  max_bytes?: number;
}

interface ListServicesAnswer extends AnswerTail {
  lookback: string;
  services: ServiceRecord[];
}

export const listServices: McpTool<ListServicesArgs, ListServicesAnswer> = {
  name: "list_services",
  title: "List services",
  description:
    "The services that sent telemetry (traces, logs or metrics) in the window, newest activity first, with when each was last seen. Start here to learn the service names the other tools filter by.",
  inputSchema: toolInput({ lookback: LOOKBACK_PROPERTY }),
  outputSchema: toolOutput(
    {
      lookback: { type: "string", description: "The window asked about" },
      services: {
        type: "array",
        items: {
          type: "object",
          properties: { name: { type: "string" }, lastSeenAt: { type: "string", description: "ISO 8601" } },
          required: ["name", "lastSeenAt"],
        },
      },
    },
    ["lookback", "services"],
  ),
  async run(args, ctx) {
    const page = await ctx.api.listServices(args.lookback === undefined ? {} : { lookback: args.lookback });
    const lookback = page.meta.lookback ?? args.lookback ?? "";
    const { answer, kept } = fitItems(page.data, ctx.maxBytes, (services, truncated) => ({
      lookback,
      services: [...services],
      truncated: truncated || page.meta.truncated,
      next: services.slice(0, 2).map((service) => ({
        tool: "search_traces",
        arguments: { service: service.name, lookback },
        why: `the latest traces of ${service.name}`,
      })),
    }));
    const summary = page.data.length
      ? `${page.data.length} services in the last ${lookback}${kept < page.data.length ? `; ${kept} shown within max_bytes` : ""}.`
      : `No services sent telemetry in the last ${lookback}.`;
    return { structured: answer, summary };
  },
};

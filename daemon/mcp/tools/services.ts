/** `list_services`: where an investigation starts. */
import { cutString, fitItems, toolInput, toolOutput } from "../budget.js";
import type { AnswerTail, McpTool } from "../mcp-tool.js";
import { LOOKBACK_PROPERTY } from "./common-inputs.js";
import { usableCalls } from "./next-calls.js";
import { label } from "./telemetry-text.js";

interface ListServicesArgs {
  lookback?: string;
  max_bytes?: number;
}

/** A service and when it last sent telemetry (ISO 8601). */
interface ServiceRow {
  name: string;
  last_seen_at: string;
}

interface ListServicesAnswer extends AnswerTail {
  lookback: string;
  services: ServiceRow[];
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
          properties: { name: { type: "string" }, last_seen_at: { type: "string", description: "ISO 8601" } },
          required: ["name", "last_seen_at"],
        },
      },
    },
    ["lookback", "services"],
  ),
  async run(args, ctx) {
    const page = await ctx.api.listServices(args.lookback === undefined ? {} : { lookback: args.lookback });
    const lookback = page.meta.lookback ?? args.lookback ?? "";
    // The API lists by name; an investigation starts from the services active last, which are
    // the ones kept within max_bytes and suggested next. The ISO times have one width: compared as text.
    const rows = page.data
      .map(({ name, lastSeenAt }): ServiceRow => ({ name, last_seen_at: lastSeenAt }))
      .sort((a, b) =>
        a.last_seen_at === b.last_seen_at ? (a.name < b.name ? -1 : 1) : a.last_seen_at < b.last_seen_at ? 1 : -1,
      );
    const { answer, kept } = fitItems(rows, ctx.maxBytes, (services, truncated) => ({
      lookback,
      services: services.map((service) => ({ ...service, name: cutString(service.name) })),
      truncated: truncated || page.meta.truncated,
      next: usableCalls(
        services.slice(0, 2).map((service) => ({
          tool: "search_traces",
          arguments: { service: service.name, lookback },
          why: `the latest traces of ${label(service.name)}`,
        })),
      ),
    }));
    const summary = page.data.length
      ? `${page.data.length} services in the last ${lookback}${kept < page.data.length ? `; ${kept} shown within max_bytes` : ""}.`
      : `No services sent telemetry in the last ${lookback}.`;
    return { structured: answer, summary };
  },
};

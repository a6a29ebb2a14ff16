/** `list_services`: where an investigation starts. */
import { cutString, fitItems, toolInput, toolOutput } from "../budget.js";
import type { AnswerTail, McpTool } from "../mcp-tool.js";
import { LOOKBACK_PROPERTY } from "./common-inputs.js";
import { continuationCall, usableCalls } from "./next-calls.js";
import { withoutUndefined } from "./query-args.js";
import { label } from "./telemetry-text.js";

export interface ListServicesArgs {
  lookback?: string;
  offset?: number;
  max_bytes?: number;
}

/** A service and when it last sent telemetry (ISO 8601). */
interface ServiceRow {
  name: string;
  last_seen_at: string;
}

interface ListServicesAnswer extends AnswerTail {
  lookback: string;
  offset: number;
  services: ServiceRow[];
}

export const listServices: McpTool<ListServicesArgs, ListServicesAnswer> = {
  name: "list_services",
  title: "List services",
  description:
    "The services that sent telemetry (traces, logs or metrics) in the window, newest activity first, with when each was last seen. Start here to learn the service names the other tools filter by. When they do not all fit max_bytes, the continuation lists the rest from an offset.",
  inputSchema: toolInput({
    lookback: LOOKBACK_PROPERTY,
    offset: {
      type: "integer",
      minimum: 0,
      description: "Where to start in the list, newest activity first (0: the first); a continuation sets it",
    },
  }),
  outputSchema: toolOutput(
    {
      lookback: { type: "string", description: "The window asked about" },
      offset: { type: "integer", description: "The position of the first service shown in the whole list" },
      services: {
        type: "array",
        items: {
          type: "object",
          properties: { name: { type: "string" }, last_seen_at: { type: "string", description: "ISO 8601" } },
          required: ["name", "last_seen_at"],
        },
      },
    },
    ["lookback", "offset", "services"],
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
    const offset = Math.min(args.offset ?? 0, rows.length);
    const rest = rows.slice(offset);
    const { answer, kept } = fitItems(rest, ctx.maxBytes, (services, truncated) => ({
      lookback,
      offset,
      services: services.map((service) => ({ ...service, name: cutString(service.name) })),
      truncated: truncated || page.meta.truncated,
      ...(truncated
        ? {
            continuation: continuationCall(
              "list_services",
              withoutUndefined({ lookback: args.lookback, offset: offset + services.length }),
              args.max_bytes,
              `the services after the first ${offset + services.length} of ${rows.length}`,
            ),
          }
        : {}),
      next: usableCalls(
        services.slice(0, 2).map((service) => ({
          tool: "search_traces",
          arguments: { service: service.name, lookback },
          why: `the latest traces of ${label(service.name)}`,
        })),
      ),
    }));
    const shown = offset > 0 || kept < rest.length ? `; ${kept} shown${offset > 0 ? ` from ${offset}` : ""}` : "";
    const summary = rows.length
      ? `${rows.length} services in the last ${lookback}${shown}${kept < rest.length ? " within max_bytes" : ""}.`
      : `No services sent telemetry in the last ${lookback}.`;
    return { structured: answer, summary };
  },
};

import type { CommandModule } from "yargs";
import { traceUrl } from "../../shared/ui-links.js";
import { ArgumentError } from "../lifecycle/lifecycle-error.js";
import { emitSuccess } from "../render/output.js";
import { clientFor, queryCommand, type SetExit } from "./query-command.js";
import { flagRequest, routeFlags } from "./route-flags.js";

/** The width the waterfall's bars scale to: the terminal's, or COLUMNS, or 100 off a terminal. */
function terminalColumns(): number {
  return process.stdout.columns || Number(process.env.COLUMNS) || 100;
}

/** `obs trace`: one trace as a waterfall. */
export function traceCommand(setExit: SetExit): CommandModule {
  return queryCommand(setExit, {
    command: "trace <traceId>",
    describe:
      "One trace as a waterfall: each span's start offset, duration and bar, in tree order, then its web UI link",
    builder: (argv) =>
      routeFlags(argv.positional("traceId", { type: "string", describe: "32 hex characters" }), "getTrace", {
        include:
          "Add detail: spans, logs, attributes (comma-separated or repeated); logs are printed under the waterfall too",
      }),
    run: async (flags, json) => {
      const traceId = String(flags.traceId);
      if (!/^[0-9a-fA-F]{32}$/.test(traceId))
        throw new ArgumentError(`"${traceId}" is not a trace id (32 hex characters)`);
      const client = await clientFor(flags);
      const request = { traceId, ...flagRequest("getTrace", flags) };
      // An empty --include asks for nothing more, as no --include does.
      if (request.include === "") delete request.include;
      const body = await client.getTrace(request);
      const t = body.data;
      const { renderTraceWaterfall } = await import("../render/trace-waterfall.js");
      // A trace answer holds at most 10,000 spans: say so up front, where it is seen, with
      // the request that reads the rest.
      const partial = body.meta?.truncated
        ? `showing the first ${body.meta.returned} of ${t.spanCount} spans; the rest: curl -s '${client.baseUrl}/api/traces/${t.traceId}/spans?cursor=${encodeURIComponent(String(body.meta.nextCursor))}'`
        : null;
      const lines = json ? [] : renderTraceWaterfall(t, { columns: terminalColumns() });
      if (partial && lines.length > 0) lines.splice(1, 0, partial);
      // The same trace in the web UI's waterfall, where it can be explored (the JSON document is
      // the API's trace record, which names no addresses).
      if (!json) lines.push(`web UI: ${traceUrl(client.baseUrl, t.traceId)}`);
      return emitSuccess(json, "trace", t, lines.join("\n"), body.meta ?? null, partial ? [partial] : []);
    },
  });
}

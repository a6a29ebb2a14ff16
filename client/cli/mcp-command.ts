/**
 * `obs mcp`: obs's MCP server over stdio, for coding agents that start it as a subprocess. It
 * serves the same tools as obsd's `POST /mcp` (daemon/mcp/mcp-server.ts), over ObsClient. The
 * collector is found for every tool call exactly as the query commands find it (--base-url,
 * --host/--port, OBS_MONITOR_URL, else discovery from the working folder), so a collector
 * started after the server is used by the next call, and a call while none runs is a tool
 * error, not a crash. stdout carries MCP only; diagnostics go to stderr. The server and the
 * SDK load only when this command runs.
 */
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { Argv, CommandModule } from "yargs";
import type { ToolTarget } from "../../daemon/mcp/mcp-server.js";
import { ExitCode } from "../../shared/exit-codes.js";
import { collectorBaseUrl, oneCollectorAddress, portNumber, target } from "./query-support.js";

type SetExit = (code: number) => void;

/** How long answers still owed are waited for once stdin has closed. */
const ANSWER_WAIT_MS = 60_000;
type Flags = Record<string, unknown>;

/** The target flags of the query commands, without --json: stdout belongs to MCP. */
function mcpFlags<T>(argv: Argv<T>) {
  return argv
    .option("base-url", {
      type: "string",
      coerce: collectorBaseUrl,
      describe: "Collector URL, used exactly (also OBS_MONITOR_URL)",
    })
    .option("host", { type: "string", describe: "Collector host, used exactly" })
    .option("port", { alias: "p", type: "string", coerce: portNumber, describe: "Collector port, used exactly" })
    .check(oneCollectorAddress);
}

/**
 * Counts the requests `transport` has received and not yet answered, and tells when none are
 * left: a client that writes its requests and closes stdin (a pipe) still gets every answer.
 */
function trackPending(transport: Transport): { idle: () => Promise<void> } {
  const pending = new Set<string | number>();
  let settle: (() => void) | undefined;
  const receive = transport.onmessage;
  transport.onmessage = (message, extra) => {
    if ("method" in message && "id" in message) pending.add(message.id);
    receive?.(message, extra);
  };
  const send = transport.send.bind(transport);
  transport.send = async (message, options) => {
    await send(message, options);
    if (("result" in message || "error" in message) && message.id !== undefined) {
      pending.delete(message.id);
      if (pending.size === 0) settle?.();
    }
  };
  return {
    idle: () =>
      pending.size === 0
        ? Promise.resolve()
        : new Promise<void>((resolve) => {
            settle = resolve;
          }),
  };
}

/** Serves MCP on stdin/stdout until stdin closes and every request read is answered. */
async function serve(flags: Flags): Promise<void> {
  const [{ createMcpServer }, { StdioServerTransport }, { ObsClient }] = await Promise.all([
    import("../../daemon/mcp/mcp-server.js"),
    import("@modelcontextprotocol/sdk/server/stdio.js"),
    import("../api/obs-client.js"),
  ]);
  const targetForCall = async (): Promise<ToolTarget> => {
    const baseUrl = await target(flags);
    return { api: new ObsClient(baseUrl), baseUrl };
  };
  const server = createMcpServer(targetForCall);
  const transport = new StdioServerTransport();
  transport.onerror = (error) => process.stderr.write(`obs mcp: ${error.message}\n`);
  const stdinClosed = new Promise<void>((resolve) => {
    process.stdin.once("end", resolve);
    process.stdin.once("close", resolve);
  });
  await server.connect(transport);
  const requests = trackPending(transport);
  await stdinClosed;
  // Answers still owed are waited for, but not forever: not past a reader that went away
  // (stdout closed: a write would wait for a drain that never comes), nor past a bound well
  // over a tool call's own (a few API calls, each timed out by ObsClient).
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([
    requests.idle(),
    new Promise<void>((resolve) => process.stdout.once("close", resolve)),
    new Promise<void>((resolve) => {
      timer = setTimeout(resolve, ANSWER_WAIT_MS);
    }),
  ]);
  clearTimeout(timer);
  await server.close();
}

export function mcpCommand(setExit: SetExit): CommandModule {
  return {
    command: "mcp",
    describe:
      "Serve obs's MCP tools, prompts and collector resource over stdio, for coding agents (the collector is found per call, as the query commands find it)",
    builder: (argv: Argv) => mcpFlags(argv),
    handler: async (flags: Flags) => {
      await serve(flags);
      setExit(ExitCode.ok);
    },
  };
}

/**
 * `obs agentcli [ARGS...]`: runs the coding agent with its arguments untouched, stdio shared,
 * signals passed on and its exit status returned, with the collector injected through the
 * standard OpenTelemetry environment variables of that one process only.
 */
import { spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import { constants } from "node:os";
import { runningCollectors } from "../discovery/running-collectors.js";
import { LifecycleError } from "../lifecycle/lifecycle-error.js";
import { targetCollector } from "../lifecycle/target-collector.js";
import { AGENT_NAME, locateAgent } from "./agent-binary.js";
import { withResourceAttribute } from "./resource-attributes.js";
import { readSavedCollector } from "./saved-collector.js";
import type { AgentProtocol } from "./telemetry-settings.js";

export const AGENT_NAMESPACE = "agentcli-agents";

/** OTEL_EXPORTER_OTLP_PROTOCOL for the agent's `telemetry.otlpProtocol` values. */
const OTLP_PROTOCOL_ENV: Record<AgentProtocol, string> = { grpc: "grpc", http: "http/protobuf" };

/**
 * A signal's own endpoint, which the SDKs prefer to OTEL_EXPORTER_OTLP_ENDPOINT: one left in the
 * caller's environment would send that signal elsewhere, and `obs metrics` would find nothing.
 */
export const SIGNAL_ENDPOINTS = [
  "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT",
  "OTEL_EXPORTER_OTLP_METRICS_ENDPOINT",
  "OTEL_EXPORTER_OTLP_LOGS_ENDPOINT",
] as const;

/**
 * The agent's environment: the caller's, plus the collector endpoint (a signal's own endpoint
 * left out), the agents' namespace and an instance id of this launch, and the protocol only
 * when setup was asked for one: the collector's port takes gRPC and HTTP alike, so otherwise the
 * agent keeps its own default.
 *
 * The instance id tells two sessions apart: with the same resource and attributes, two agents
 * running at once would write one cumulative series whose points alternate between processes,
 * each counted whole as a reset (a session's tokens read about three times over).
 */
export function agentEnvironment(
  env: NodeJS.ProcessEnv,
  collectorUrl: string,
  protocol?: AgentProtocol,
  instanceId: string = randomUUID(),
): NodeJS.ProcessEnv {
  const agent: NodeJS.ProcessEnv = {
    ...env,
    OTEL_EXPORTER_OTLP_ENDPOINT: collectorUrl,
    ...(protocol ? { OTEL_EXPORTER_OTLP_PROTOCOL: OTLP_PROTOCOL_ENV[protocol] } : {}),
    OTEL_RESOURCE_ATTRIBUTES: withResourceAttribute(
      withResourceAttribute(env.OTEL_RESOURCE_ATTRIBUTES, "service.namespace", AGENT_NAMESPACE),
      "service.instance.id",
      instanceId,
    ),
  };
  for (const name of SIGNAL_ENDPOINTS) delete agent[name];
  return agent;
}

/**
 * The saved collector URL, warning when nothing runs there; without one, the collector
 * discovery picks for this folder, or an error that says to run setup.
 */
async function collectorUrl(env: NodeJS.ProcessEnv, cwd: string, warn: (line: string) => void): Promise<string> {
  const saved = readSavedCollector(env);
  if (saved) {
    const running = await runningCollectors(env);
    if (!running.some((entry) => entry.baseUrl === saved.url)) {
      warn(
        `obs: no collector is running at ${saved.url}, so this session's telemetry will not be kept; start it with: obs setup agentcli`,
      );
    }
    return saved.url;
  }
  try {
    const found = await targetCollector(cwd, {}, env);
    warn(
      `obs: ${AGENT_NAME} is not set up (run: obs setup agentcli); exporting to the running collector at ${found.baseUrl}`,
    );
    return found.baseUrl;
  } catch (error) {
    if (error instanceof LifecycleError && error.code === "collector_unavailable") {
      throw new LifecycleError(
        "collector_unavailable",
        `no collector is saved for ${AGENT_NAME} and none is running; run: obs setup agentcli`,
      );
    }
    throw error;
  }
}

/**
 * Signals a terminal sends to its whole foreground process group (Ctrl+C, Ctrl+\) already
 * reach the agent; passing them on again would deliver them twice, which agents read as a
 * second keypress. They are passed on only when obs is not attached to a terminal.
 */
const TERMINAL_SIGNALS: NodeJS.Signals[] = ["SIGINT", "SIGQUIT"];
const FORWARDED_SIGNALS: NodeJS.Signals[] = ["SIGTERM", "SIGHUP", "SIGUSR2", ...TERMINAL_SIGNALS];

export async function launchAgentcli(
  args: string[],
  env: NodeJS.ProcessEnv = process.env,
  cwd: string = process.cwd(),
): Promise<number> {
  const agentPath = locateAgent(env);
  const url = await collectorUrl(env, cwd, (line) => process.stderr.write(`${line}\n`));
  const protocol = readSavedCollector(env)?.protocol;
  for (const name of SIGNAL_ENDPOINTS) {
    if (env[name]) process.stderr.write(`obs: ${name} is not passed to ${AGENT_NAME}: its telemetry goes to ${url}\n`);
  }
  const child = spawn(agentPath, args, { stdio: "inherit", env: agentEnvironment(env, url, protocol), cwd });
  const fromTerminal = process.stdin.isTTY === true;
  const handlers = FORWARDED_SIGNALS.map((signal) => {
    const handler = () => {
      if (fromTerminal && TERMINAL_SIGNALS.includes(signal)) return;
      child.kill(signal);
    };
    process.on(signal, handler);
    return () => process.off(signal, handler);
  });
  try {
    return await new Promise<number>((resolve, reject) => {
      child.once("error", (error) =>
        reject(new LifecycleError("invalid_argument", `could not start ${agentPath}: ${error.message}`)),
      );
      child.once("exit", (code, signal) => {
        // A shell reports a process killed by signal N as 128 + N.
        resolve(code ?? 128 + (signal ? (constants.signals[signal] ?? 0) : 0));
      });
    });
  } finally {
    for (const remove of handlers) remove();
  }
}

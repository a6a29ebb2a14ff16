import type { RegistryEntry } from "../../shared/control-protocol.js";
import { chooseCollector } from "../discovery/choose-collector.js";
import { runningCollectors } from "../discovery/running-collectors.js";
import { LifecycleError } from "./lifecycle-error.js";

/**
 * The running collector a lifecycle command acts on: the one on `port` (and `host`) when
 * given, else the one discovery chooses for `cwd`.
 */
export async function targetCollector(
  cwd: string,
  address: { host?: string | undefined; port?: number | undefined },
  env: NodeJS.ProcessEnv = process.env,
): Promise<RegistryEntry> {
  const running = await runningCollectors(env);
  if (address.port !== undefined) {
    const match = running.find(
      (entry) => entry.port === address.port && (address.host === undefined || entry.host === address.host),
    );
    if (match) return match;
    throw new LifecycleError("collector_unavailable", `no obs collector is running on port ${address.port}`);
  }
  const choice = chooseCollector(running, cwd);
  if (choice.kind === "chosen") return choice.entry;
  if (choice.kind === "none") {
    throw new LifecycleError(
      "collector_unavailable",
      "no obs collector is running; start one with: obs monitor start --detach",
    );
  }
  throw new LifecycleError(
    "collector_ambiguous",
    `several collectors are running and none was started in or above ${cwd}; name one with --port:\n${choice.candidates
      .map((entry) => `  --port ${entry.port}  ${entry.baseUrl}  started in ${entry.cwd}`)
      .join("\n")}`,
    { candidates: choice.candidates.map((entry) => ({ port: entry.port, base_url: entry.baseUrl, cwd: entry.cwd })) },
  );
}

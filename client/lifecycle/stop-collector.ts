import type { RegistryEntry } from "../../shared/control-protocol.js";
import { processAlive } from "../../shared/process-alive.js";
import { askCollector } from "../control/control-client.js";
import { LifecycleError } from "./lifecycle-error.js";

/**
 * Stops a verified collector through its control socket (never by signalling a pid), and waits
 * until its process has exited.
 */
export async function stopCollector(collector: RegistryEntry, timeoutMs = 15_000): Promise<void> {
  const answer = await askCollector(collector.socketPath, { op: "shutdown" }, 2_000).catch((error: Error) => {
    throw new LifecycleError("collector_unavailable", `cannot reach the collector's control socket: ${error.message}`);
  });
  if (!answer.ok || answer.op !== "shutdown" || answer.instanceId !== collector.instanceId) {
    throw new LifecycleError(
      "collector_unavailable",
      "the control socket answered for another collector; nothing was stopped",
    );
  }
  const deadline = Date.now() + timeoutMs;
  while (processAlive(collector.pid)) {
    if (Date.now() > deadline) {
      throw new LifecycleError(
        "timeout",
        `the collector (pid ${collector.pid}) is still finishing after ${timeoutMs / 1000} s`,
      );
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

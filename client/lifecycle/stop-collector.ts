import { dirname } from "node:path";
import type { RegistryEntry } from "../../shared/control-protocol.js";
import { processAlive, startIdentity } from "../../shared/process-alive.js";
import { privateDirProblem } from "../../shared/state-dir.js";
import { askCollector, ControlError } from "../control/control-client.js";
import { LifecycleError } from "./lifecycle-error.js";

/** How long the collector's own /api/health may take when it is stopped without its socket. */
const HEALTH_TIMEOUT_MS = 2_000;

/**
 * Stops a verified collector through its control socket, and waits until its process has
 * exited. A collector whose socket is gone (a temp cleaner removed it) is stopped with SIGTERM,
 * which it handles as a shutdown request, but only once it is known for this user's
 * collector: its registry entry (a file of this user's, in a private folder) names its pid, the
 * process with that pid is the one that wrote the entry (its start after boot is the one the
 * entry records), and what answers at its address reports the entry's instance id and that
 * pid. Never a signal to a pid on the word of whatever answers on a port.
 */
export async function stopCollector(collector: RegistryEntry, timeoutMs = 15_000): Promise<void> {
  if (privateDirProblem(dirname(collector.socketPath)) !== null) {
    await signalWithoutSocket(collector);
  } else {
    try {
      const answer = await askCollector(collector.socketPath, { op: "shutdown" }, 2_000);
      if (!answer.ok || answer.op !== "shutdown" || answer.instanceId !== collector.instanceId) {
        throw new LifecycleError(
          "collector_unavailable",
          "the control socket answered for another collector; nothing was stopped",
        );
      }
    } catch (error) {
      if (error instanceof LifecycleError) throw error;
      if (!(error instanceof ControlError && error.failure === "unreachable")) {
        throw new LifecycleError(
          "collector_unavailable",
          `cannot reach the collector's control socket: ${(error as Error).message}`,
        );
      }
      await signalWithoutSocket(collector);
    }
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

/**
 * SIGTERM to a collector without a usable control socket, once it is known for the one on
 * record: the process with its pid started at the very moment, after boot, that its entry
 * records (startIdentity; a step of the wall clock does not move it). Where that cannot be told
 * (an entry an older obs wrote, or no /proc), nothing is signalled: the pid may be another
 * process's by now, and whatever answers on the collector's old port may repeat its instance
 * id and pid (its health answer is unauthenticated). The user is told the pid to check and kill.
 */
async function signalWithoutSocket(collector: RegistryEntry): Promise<void> {
  const nothing = `its control socket ${collector.socketPath} is gone or cannot be used`;
  const identity = processAlive(collector.pid) ? startIdentity(collector.pid, collector.startTicks) : "other";
  if (identity === "other") {
    throw new LifecycleError(
      "collector_unavailable",
      `the collector (pid ${collector.pid}) is no longer running, and ${nothing}; nothing was stopped`,
    );
  }
  if (identity === "unknown") {
    const why =
      collector.startTicks === undefined
        ? "its registry entry records no process start to compare (it was written by an older obs, or where there is no /proc)"
        : "this system shows no process starts (/proc) to compare with its registry entry's";
    throw new LifecycleError(
      "collector_unavailable",
      `${nothing}, and obs cannot confirm that pid ${collector.pid} is still this collector: ${why}; nothing was stopped. Check that pid ${collector.pid} is the collector started in ${collector.cwd} (ps -p ${collector.pid}), and if it is, stop it with: kill ${collector.pid}`,
      { pid: collector.pid, base_url: collector.baseUrl },
    );
  }
  const { ObsClient } = await import("../api/obs-client.js");
  const health: { instanceId?: unknown; pid?: unknown } | null = await new ObsClient(collector.baseUrl, {
    timeoutMs: HEALTH_TIMEOUT_MS,
  })
    .health()
    .catch(() => null);
  if (health?.instanceId !== collector.instanceId || health?.pid !== collector.pid) {
    throw new LifecycleError(
      "collector_unavailable",
      `${nothing}, and ${collector.baseUrl} does not answer as this collector (instance ${collector.instanceId}, pid ${collector.pid}); nothing was stopped. If it is still running, stop it with: kill ${collector.pid}`,
      { pid: collector.pid, base_url: collector.baseUrl },
    );
  }
  process.kill(collector.pid, "SIGTERM");
}

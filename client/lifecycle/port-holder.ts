import type { RegistryEntry } from "../../shared/control-protocol.js";
import { processStopped } from "../../shared/process-alive.js";
import { type CollectorsOnRecord, collectorsOnRecord } from "../discovery/running-collectors.js";
import { LifecycleError } from "./lifecycle-error.js";

/**
 * The error for a start that cannot listen where it was asked (`problem`, the listen's error):
 * the port held by one of this user's collectors (named, with how to stop it: it may listen on
 * another of its addresses, or not answer on its control socket just now; a stopped one is
 * resumed with kill -CONT first, as `monitor stop` cannot reach it), by some other
 * process (left alone: exit 3), or an address this machine cannot listen on (a name that does
 * not resolve, an address it does not have, a port it may not open: exit 2).
 */
export function unlistenableError(
  problem: Pick<NodeJS.ErrnoException, "code" | "message">,
  host: string,
  port: number,
  collectors: Pick<CollectorsOnRecord, "running" | "unresponsive"> & Partial<Pick<CollectorsOnRecord, "withoutSocket">>,
): LifecycleError {
  const where = { host, port };
  if (problem.code !== "EADDRINUSE") {
    return new LifecycleError("invalid_argument", `cannot listen on ${host} port ${port}: ${problem.message}`, where);
  }
  const holder = (entries: RegistryEntry[]) => entries.find((entry) => entry.port === port);
  const running = holder(collectors.running);
  const silent = running ? undefined : holder(collectors.unresponsive);
  const collector = running ?? silent;
  if (collector) {
    const stop = `obs monitor stop --base-url ${collector.baseUrl}`;
    const details = { ...where, holder: { pid: collector.pid, base_url: collector.baseUrl, cwd: collector.cwd } };
    const held = `port ${port} on ${host} is held by the obs collector at ${collector.baseUrl} (pid ${collector.pid})`;
    // `monitor stop` stops one that answers, or one whose socket is gone (by its pid); one that
    // is stopped, or whose socket accepts without answering, it cannot (exit 5): it is resumed first.
    const socketless = silent !== undefined && (collectors.withoutSocket ?? []).includes(silent);
    const stopped = silent !== undefined && processStopped(silent.pid);
    if (silent && (stopped || !socketless)) {
      const state = stopped
        ? `which is stopped (SIGSTOP or Ctrl+Z). Resume it with kill -CONT ${silent.pid}, then stop it (${stop}) if you want its port,`
        : `which does not answer on its control socket just now: it may be stopped (resume it with kill -CONT ${silent.pid}) or too busy. Once it answers, stop it (${stop}),`;
      return new LifecycleError(
        "collector_unavailable",
        `${held}, ${state} or choose another port with --port.`,
        details,
      );
    }
    const state = silent
      ? "which does not answer on its control socket just now"
      : `which listens on ${collector.host}`;
    return new LifecycleError(
      "collector_unavailable",
      `${held}, ${state}. Stop it (${stop}) or choose another port with --port.`,
      details,
    );
  }
  return new LifecycleError(
    "collector_unavailable",
    `port ${port} on ${host} is held by another process that is not an obs collector of this state folder; it was left alone. Choose another port with --port.`,
    where,
  );
}

/**
 * The error for a port found held when a collector tried to listen on it (a foreground start, or
 * a background collector that lost a race for it): the collector that holds it, if one of this
 * user's does, or another process (exit 3 either way).
 */
export async function portHeldError(
  host: string,
  port: number,
  env: NodeJS.ProcessEnv = process.env,
): Promise<LifecycleError> {
  return unlistenableError({ code: "EADDRINUSE", message: "" }, host, port, await collectorsOnRecord(env));
}

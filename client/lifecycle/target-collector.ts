import type { RegistryEntry } from "../../shared/control-protocol.js";
import { chooseCollector } from "../discovery/choose-collector.js";
import { explicitTarget, type ResolvedTarget, type TargetFlags, targetOrigin } from "../discovery/explicit-target.js";
import { listensAt } from "../discovery/named-address.js";
import { collectorsOnRecord } from "../discovery/running-collectors.js";
import { LifecycleError } from "./lifecycle-error.js";

/** How long a named collector's /api/health may take to say who it is: a stopped one never does. */
const IDENTITY_TIMEOUT_MS = 1_500;

export interface TargetOptions {
  /**
   * Act on a collector whose process runs but whose control socket is gone (a temp cleaner
   * removed it): `monitor stop` can stop it without the socket (stop-collector.ts). Anything
   * else is told to try again once the collector has made its socket anew.
   */
  acceptWithoutSocket?: boolean;
}

/**
 * The running collector a lifecycle command acts on. A collector named by --base-url,
 * --host/--port or OBS_MONITOR_URL is used exactly: it must be a verified obs collector of
 * this user, else the command fails (exit 3) and touches nothing. Without one, discovery
 * chooses for `cwd`.
 */
export async function targetCollector(
  cwd: string,
  flags: TargetFlags,
  env: NodeJS.ProcessEnv = process.env,
  options: TargetOptions = {},
): Promise<RegistryEntry> {
  const named = explicitTarget(flags, env);
  return named ? verifiedCollectorAt(named, env, options) : discoveredCollector(cwd, env, options);
}

/**
 * The error for one of this user's collectors that runs but does not answer on its control
 * socket: stopped or too busy (exit 5, as a timeout), or without a socket to answer on.
 */
export function unresponsiveError(entry: RegistryEntry, withoutSocket: boolean): LifecycleError {
  const why = withoutSocket
    ? `is running, but its control socket ${entry.socketPath} is gone (a temp-folder cleaner may have removed it) or cannot be used; the collector makes it again within seconds, and obs monitor stop can stop it meanwhile`
    : `is running but does not answer on its control socket; it may be stopped (kill -CONT ${entry.pid}) or too busy`;
  return new LifecycleError(
    "timeout",
    `the collector started in ${entry.cwd} (pid ${entry.pid}, ${entry.baseUrl}) ${why}. Nothing was touched; try again, or name another collector with --port`,
    { pid: entry.pid, base_url: entry.baseUrl, cwd: entry.cwd },
  );
}

/**
 * The running collector that answers at a named URL. What answers there says who it is over
 * HTTP; it counts only when that identity is one of this user's collectors whose control
 * socket confirmed it, and that collector's registered address is the one named (any local
 * process can repeat an id it read from another collector's unauthenticated health). A URL where nothing answers, or another program, or a collector obs
 * cannot reach through its socket, is refused: falling back to another collector would act on
 * one the user did not name. One of this user's collectors there that is on record but does
 * not answer (stopped, or its socket gone) is named, with what to do (exit 5).
 */
export async function verifiedCollectorAt(
  target: ResolvedTarget,
  env: NodeJS.ProcessEnv,
  options: TargetOptions = {},
): Promise<RegistryEntry> {
  const [{ running, unresponsive, withoutSocket }, heard] = await Promise.all([
    collectorsOnRecord(env),
    identityAt(target.baseUrl),
  ]);
  const details = { base_url: target.baseUrl, source: target.source };
  if (heard === "timeout") {
    const silent = unresponsive.find((entry) => listensAt(entry, target.baseUrl));
    if (silent) throw unresponsiveError(silent, withoutSocket.includes(silent));
    throw new LifecycleError(
      "timeout",
      `${target.baseUrl} (${targetOrigin(target)}): no answer within ${IDENTITY_TIMEOUT_MS / 1000} s; nothing was touched.`,
      details,
    );
  }
  const instanceId = heard;
  const claimed = running.find((entry) => entry.instanceId === instanceId);
  if (claimed && listensAt(claimed, target.baseUrl)) return claimed;
  const notAnswering = unresponsive.find((entry) => entry.instanceId === instanceId);
  if (notAnswering && listensAt(notAnswering, target.baseUrl)) {
    const socketless = withoutSocket.includes(notAnswering);
    if (socketless && options.acceptWithoutSocket) return notAnswering;
    throw unresponsiveError(notAnswering, socketless);
  }
  const what =
    instanceId === null
      ? "no obs collector answers there"
      : claimed
        ? `what answers there reports the identity of the collector at ${claimed.baseUrl}, which does not listen there`
        : "the obs collector there is not one of this user's running collectors (its control socket is not in this state folder)";
  throw new LifecycleError(
    "collector_unavailable",
    `${target.baseUrl} (${targetOrigin(target)}): ${what}; nothing was touched. Name a running collector, or unset it to let discovery choose.`,
    details,
  );
}

/**
 * The instance id the collector at `baseUrl` reports; null when nothing there says it is one;
 * "timeout" when something accepted the connection but gave no answer in time.
 */
async function identityAt(baseUrl: string): Promise<string | null | "timeout"> {
  const { ObsClient } = await import("../api/obs-client.js");
  try {
    // What answers may be another program: nothing in its answer is trusted to be a health record.
    const health: { instanceId?: unknown } = await new ObsClient(baseUrl, { timeoutMs: IDENTITY_TIMEOUT_MS }).health();
    return typeof health.instanceId === "string" ? health.instanceId : null;
  } catch (error) {
    return error instanceof LifecycleError && error.code === "timeout" ? "timeout" : null;
  }
}

/** The collector discovery chooses for `cwd`: the project's, or the only one running. */
export async function discoveredCollector(
  cwd: string,
  env: NodeJS.ProcessEnv = process.env,
  options: TargetOptions = {},
): Promise<RegistryEntry> {
  const { running, unresponsive, withoutSocket } = await collectorsOnRecord(env);
  const choice = chooseCollector(running, cwd, unresponsive);
  if (choice.kind === "chosen") return choice.entry;
  if (choice.kind === "unresponsive") {
    const socketless = withoutSocket.includes(choice.entry);
    if (socketless && options.acceptWithoutSocket) return choice.entry;
    throw unresponsiveError(choice.entry, socketless);
  }
  if (choice.kind === "none") {
    throw new LifecycleError(
      "collector_unavailable",
      "no obs collector is running; start one with: obs monitor start --detach",
    );
  }
  throw new LifecycleError(
    "collector_ambiguous",
    `several collectors are running and none was started in or above ${cwd}; name one with --port:\n${choice.candidates
      .map(
        (entry) =>
          `  --port ${entry.port}  ${entry.baseUrl}  started in ${entry.cwd}${unresponsive.includes(entry) ? `  (not answering: pid ${entry.pid})` : ""}`,
      )
      .join("\n")}`,
    { candidates: choice.candidates.map((entry) => ({ port: entry.port, base_url: entry.baseUrl, cwd: entry.cwd })) },
  );
}

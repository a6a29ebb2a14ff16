import { spawn } from "node:child_process";
import { closeSync, openSync, readFileSync } from "node:fs";
import { createServer } from "node:net";
import { join } from "node:path";
import {
  type ResolvedSettings,
  resolveSettings,
  type SettingFlags,
  SettingsError,
} from "../../shared/collector-settings.js";
import type { RegistryEntry } from "../../shared/control-protocol.js";
import { ExitCode } from "../../shared/exit-codes.js";
import { exposedBindWarning } from "../../shared/loopback-host.js";
import { packagePath } from "../../shared/package-root.js";
import { PORT_IN_USE } from "../../shared/port-in-use.js";
import { processAlive } from "../../shared/process-alive.js";
import { ensureStateDir, makePrivateDir, PRIVATE_FILE_MODE } from "../../shared/state-dir.js";
import { storeInUseMessage } from "../../shared/store-owner.js";
import { sameStore } from "../../shared/store-path.js";
import { STORE_UPGRADE_MARKER } from "../../shared/store-upgrade.js";
import { listensOn } from "../discovery/named-address.js";
import { collectorsOnRecord, runningCollectors } from "../discovery/running-collectors.js";
import { adoptedHealth, adoptionWarnings, settingDifferences } from "./adopted-settings.js";
import { collectorInvocation } from "./collector-invocation.js";
import { LifecycleError } from "./lifecycle-error.js";
import { portHeldError, unlistenableError } from "./port-holder.js";
import { takeStartLock } from "./start-lock.js";

export interface DetachedStart {
  /** False when a verified collector was already running on that address and was adopted. */
  started: boolean;
  collector: RegistryEntry;
  logPath: string | null;
  /**
   * For the user, on stderr (and in a --json document's `warnings`): an adopted collector's
   * settings that differ, and an address other machines can reach.
   */
  warnings: string[];
}

const READY_TIMEOUT_MS = 15_000;
/** How long a schema upgrade of a large store may hold up a start. */
const UPGRADE_TIMEOUT_MS = 10 * 60_000;

/** The settings, or exit 2 naming the bad one (rather than a failure of obs itself). */
export function settingsOrUsageError(flags: SettingFlags, env: NodeJS.ProcessEnv): ResolvedSettings {
  try {
    return resolveSettings(flags, env);
  } catch (error) {
    if (error instanceof SettingsError) throw new LifecycleError("invalid_argument", error.message);
    throw error;
  }
}

/**
 * Why a collector could not listen on host:port now, or null when it could (a probe listen
 * succeeds): the listen's error, EADDRINUSE when something holds the port.
 */
export function listenProblem(host: string, port: number): Promise<NodeJS.ErrnoException | null> {
  return new Promise((resolve) => {
    const probe = createServer();
    probe.once("error", (error: NodeJS.ErrnoException) => resolve(error));
    probe.listen(port, host, () => probe.close(() => resolve(null)));
  });
}

/** True when nothing listens on host:port now and a collector could. */
export async function portIsFree(host: string, port: number): Promise<boolean> {
  return (await listenProblem(host, port)) === null;
}

/** The warning that other machines can reach `collector`, if they can. */
function exposedWarnings(collector: RegistryEntry): string[] {
  const warning = exposedBindWarning(collector.host);
  return warning === null ? [] : [warning];
}

/**
 * Starts a background collector, or adopts the verified one already listening on the same
 * address. Concurrent starts serialize on a lock file, so five at once leave exactly one.
 */
export async function startDetached(flags: SettingFlags, env: NodeJS.ProcessEnv = process.env): Promise<DetachedStart> {
  const resolved = settingsOrUsageError(flags, env);
  const { settings } = resolved;
  const monitorDir = join(ensureStateDir(env), "monitor");
  makePrivateDir(join(monitorDir, "logs"));
  const lock = await takeStartLock(monitorDir);
  try {
    if (lock.predecessorCollector !== null) {
      await untilRegistered(lock.predecessorCollector, env, join(monitorDir, "logs"));
    }
    const onRecord = await collectorsOnRecord(env);
    const { running } = onRecord;
    const same = running.find((entry) => listensOn(entry, settings.host, settings.port));
    if (same) {
      const differences = settingDifferences(resolved, same, await adoptedHealth(same));
      const warnings = [...adoptionWarnings(same, differences), ...exposedWarnings(same)];
      return { started: false, collector: same, logPath: null, warnings };
    }
    const problem = await listenProblem(settings.host, settings.port);
    if (problem !== null) throw unlistenableError(problem, settings.host, settings.port, onRecord);
    // The collector refuses a store another one holds (its lock decides); saying so here is
    // only quicker, and names the holder the same way. Stores compare by real path, so a
    // symlink to the file or to a folder above it is the same store.
    const holder = running.find((entry) => sameStore(entry.dbPath, settings.dbPath));
    if (holder) {
      throw new LifecycleError("invalid_argument", storeInUseMessage(settings.dbPath, holder), {
        db_path: settings.dbPath,
        holder: { pid: holder.pid, cwd: holder.cwd, port: holder.port, base_url: holder.baseUrl },
      });
    }
    const logPath = join(monitorDir, "logs", `obsd-${new Date().toISOString().replace(/[:.]/g, "-")}.log`);
    const log = openSync(logPath, "a", PRIVATE_FILE_MODE);
    const invocation = collectorInvocation(flags, env);
    const child = spawn(process.execPath, [packagePath("bin", "obsd.js"), ...invocation.args], {
      detached: true,
      stdio: ["ignore", log, log],
      cwd: process.cwd(),
      env: invocation.env,
    });
    closeSync(log);
    if (child.pid !== undefined) lock.noteCollector(child.pid);
    // Its own child: its exit is known from the event, with its code (a zombie it has not yet
    // reaped counts as gone for processAlive, before the code is known).
    let exited = false;
    let exitCode: number | null = null;
    child.once("exit", (code) => {
      exited = true;
      exitCode = code;
    });
    child.unref();
    const pid = child.pid as number;
    let deadline = Date.now() + READY_TIMEOUT_MS;
    const upgradeDeadline = Date.now() + UPGRADE_TIMEOUT_MS;
    while (Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      // An older database being brought up to date: keep waiting while the collector says so.
      if (deadline - Date.now() < 1000 && readFileSync(logPath, "utf8").includes(STORE_UPGRADE_MARKER)) {
        deadline = Math.min(upgradeDeadline, deadline + 1000);
      }
      const entry = (await runningCollectors(env, 300)).find((candidate) => candidate.pid === pid);
      // The collector's own warning went to its log, which the user does not see.
      if (entry) return { started: true, collector: entry, logPath, warnings: exposedWarnings(entry) };
      if (exited) {
        const tail = readFileSync(logPath, "utf8").trim().split("\n").slice(-5).join("\n");
        // Taken since it was found free (by a start from another state folder, say): held, as
        // it would have been reported had it been held before.
        if (exitCode === ExitCode.invalidArgument && tail.includes(PORT_IN_USE)) {
          throw await portHeldError(settings.host, settings.port, env);
        }
        // The collector's own exit says which: 2 refused its arguments (a store in use, a bad
        // setting), 4 could not open or use its store; anything else, it is not available.
        const code =
          exitCode === ExitCode.invalidArgument
            ? "invalid_argument"
            : exitCode === ExitCode.storeFailure
              ? "store_failure"
              : "collector_unavailable";
        throw new LifecycleError(code, `the collector exited while starting:\n${tail}`, { logPath });
      }
    }
    throw new LifecycleError(
      "timeout",
      `the collector did not answer within ${READY_TIMEOUT_MS / 1000} s; see ${logPath}`,
      {
        logPath,
        pid,
      },
    );
  } finally {
    await lock.release();
  }
}

/**
 * Waits while the collector a killed start had spawned is still starting: until it is among
 * the running collectors (the lookup that follows then adopts it, or names it as the store's
 * holder) or has exited. Without the wait, a start run right after one interrupted in its
 * first second found the port or the store taken by a collector not yet registered, and failed.
 */
async function untilRegistered(pid: number, env: NodeJS.ProcessEnv, logs: string): Promise<void> {
  const deadline = Date.now() + READY_TIMEOUT_MS;
  while (processAlive(pid)) {
    if ((await runningCollectors(env, 300)).some((entry) => entry.pid === pid)) return;
    if (Date.now() > deadline) {
      // Neither answering nor gone: starting anything now would only collide with it.
      throw new LifecycleError(
        "timeout",
        `the collector (pid ${pid}) that an interrupted obs monitor start left starting did not answer within ${READY_TIMEOUT_MS / 1000} s; see its log in ${logs}, or stop it (kill ${pid}) and start again`,
        { pid, logs },
      );
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/**
 * A WebDriver server obs runs itself (chromedriver, WebKitWebDriver), in its own process group so
 * that stopping it also stops what it started (Chromium, xvfb-run's Xvfb, MiniBrowser).
 *
 * Being in its own group, a driver gets no Ctrl+C from the terminal: obs keeps every live group
 * here, so that a signal handler can stop them all and a last-resort exit hook can kill them.
 */
import { spawn } from "node:child_process";
import { readdirSync } from "node:fs";
import { procStat } from "../../../shared/proc-stat.js";

const READY_TIMEOUT_MS = 15_000;
const KILL_AFTER_MS = 3_000;

export interface DriverProcess {
  stop(): Promise<void>;
}

/**
 * Whether a process of the group led by `pid` still runs. Zombies do not count: Chromium's
 * helpers, orphaned when it exits, wait as zombies until the system's init reaps them, which in
 * a container can take seconds, and they write nothing. Where there is no /proc, any process of
 * the group counts.
 */
function groupRuns(pid: number): boolean {
  let entries: string[];
  try {
    entries = readdirSync("/proc");
  } catch {
    try {
      process.kill(-pid, 0);
      return true;
    } catch {
      return false;
    }
  }
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = procStat(entry); // null: ended meanwhile
    if (stat !== null && stat.group === pid && stat.state !== "Z") return true;
  }
  return false;
}

/**
 * Waits until the group led by `pid` is gone, SIGKILLing it once `ms` have passed: the driver
 * exits before the browser it stops, and Chromium, stopping, writes to its profile, so a
 * session's folder removed when the driver alone had exited was written again, and left.
 */
async function groupGone(pid: number, ms: number): Promise<void> {
  const deadline = Date.now() + ms;
  let killed = false;
  while (groupRuns(pid)) {
    if (Date.now() > deadline) {
      if (killed) return;
      killed = true;
      try {
        process.kill(-pid, "SIGKILL");
      } catch {}
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** Live process groups (by leader pid) and how to stop each as a session's close does. */
const liveGroups = new Map<number, () => Promise<void>>();
let exitHookInstalled = false;

/** Kills every live group at once; synchronous, so it can run in `process.on("exit")`. */
export function killAllDriversNow(): void {
  for (const pid of liveGroups.keys()) {
    try {
      process.kill(-pid, "SIGKILL");
    } catch {
      // Already gone.
    }
  }
  liveGroups.clear();
}

/** Stops every live group as a session's close does, waiting at most `timeoutMs`, then kills what is left. */
export async function stopAllDrivers(timeoutMs = 5_000): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const bounded = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, timeoutMs);
  });
  await Promise.race([Promise.all([...liveGroups.values()].map((stop) => stop())), bounded]);
  clearTimeout(timer);
  killAllDriversNow();
}

/** How many driver groups are running now. */
export function liveDriverCount(): number {
  return liveGroups.size;
}

/**
 * Starts `command` and waits until it answers WebDriver's /status on 127.0.0.1:`port`.
 * `afterStop` runs once the group has stopped (a session removes its scratch folder there).
 */
export async function startDriverProcess(
  command: string,
  args: string[],
  port: number,
  env: NodeJS.ProcessEnv = process.env,
  afterStop: () => void = () => {},
): Promise<DriverProcess> {
  const child = spawn(command, args, { detached: true, stdio: ["ignore", "ignore", "pipe"], env });
  let stderr = "";
  child.stderr?.on("data", (chunk) => {
    stderr = (stderr + String(chunk)).slice(-2_000);
  });
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  let gone = false;
  child.once("exit", () => {
    gone = true;
  });
  const pid = child.pid;
  const stop = async () => {
    if (pid === undefined) return;
    if (!gone) {
      try {
        process.kill(-pid, "SIGTERM");
        const killed = setTimeout(() => {
          try {
            process.kill(-pid, "SIGKILL");
          } catch {}
        }, KILL_AFTER_MS);
        await exited;
        clearTimeout(killed);
      } catch {
        // The group is gone already.
      }
    }
    await groupGone(pid, KILL_AFTER_MS);
    liveGroups.delete(pid);
    afterStop();
  };
  if (pid !== undefined) {
    liveGroups.set(pid, stop);
    if (!exitHookInstalled) {
      exitHookInstalled = true;
      // The last resort: however obs ends, no browser it started outlives it.
      process.on("exit", killAllDriversNow);
    }
  }
  const deadline = Date.now() + READY_TIMEOUT_MS;
  for (;;) {
    if (gone) {
      if (pid !== undefined) liveGroups.delete(pid);
      throw new Error(`${command} exited before it was ready: ${stderr.trim() || "no output"}`);
    }
    const ready = await fetch(`http://127.0.0.1:${port}/status`, { signal: AbortSignal.timeout(1_000) }).then(
      (response) => response.ok,
      () => false,
    );
    if (ready) return { stop };
    if (Date.now() > deadline) {
      await stop();
      throw new Error(`${command} did not answer on port ${port} within ${READY_TIMEOUT_MS / 1000} s`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

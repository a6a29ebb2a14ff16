/**
 * A WebDriver server obs runs itself (chromedriver, WebKitWebDriver), in its own process group so
 * that stopping it also stops what it started (Chromium, xvfb-run's Xvfb, MiniBrowser).
 */
import { spawn } from "node:child_process";

const READY_TIMEOUT_MS = 15_000;

export interface DriverProcess {
  stop(): Promise<void>;
}

/** Starts `command` and waits until it answers WebDriver's /status on 127.0.0.1:`port`. */
export async function startDriverProcess(
  command: string,
  args: string[],
  port: number,
  env: NodeJS.ProcessEnv = process.env,
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
  const stop = async () => {
    if (gone || child.pid === undefined) return;
    try {
      process.kill(-child.pid, "SIGTERM");
    } catch {
      return;
    }
    const killed = setTimeout(() => {
      try {
        if (child.pid !== undefined) process.kill(-child.pid, "SIGKILL");
      } catch {}
    }, 3_000);
    await exited;
    clearTimeout(killed);
  };
  const deadline = Date.now() + READY_TIMEOUT_MS;
  for (;;) {
    if (gone) throw new Error(`${command} exited before it was ready: ${stderr.trim() || "no output"}`);
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

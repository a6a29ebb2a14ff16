/** Runs a ContainerPlan with the docker CLI: reuses the warm container, or starts it and waits for WebDriver. */
import { execFile } from "node:child_process";
import { LifecycleError } from "../../lifecycle/lifecycle-error.js";
import { type ContainerPlan, publishedWebDriverUrl } from "./container-plan.js";

export interface CommandResult {
  code: number;
  stdout: string;
  stderr: string;
}
export type CommandRunner = (argv: string[]) => Promise<CommandResult>;

const READY_TIMEOUT_MS = 60_000;

/** Runs a command without a shell; a missing program is exit code 127, as a shell would say. */
export const runCommand: CommandRunner = (argv) =>
  new Promise((resolve) => {
    const [program, ...args] = argv as [string, ...string[]];
    execFile(program, args, { timeout: 10 * 60_000, maxBuffer: 1 << 20 }, (error, stdout, stderr) => {
      const code = error ? (typeof error.code === "number" ? error.code : error.code === "ENOENT" ? 127 : 1) : 0;
      resolve({ code, stdout: String(stdout), stderr: String(stderr || (error && !stdout ? error.message : "")) });
    });
  });

const firstLine = (text: string) => text.trim().split("\n")[0] ?? "";

export interface WarmContainer {
  webdriverUrl: string;
  /** False when this run found the container already running. */
  started: boolean;
}

export async function ensureWarmContainer(
  plan: ContainerPlan,
  run: CommandRunner = runCommand,
  waitReady: (url: string) => Promise<boolean> = waitForWebDriver,
): Promise<WarmContainer> {
  const probe = await run(plan.probe);
  if (probe.code !== 0) {
    const why = probe.code === 127 ? "the docker CLI is not installed" : firstLine(probe.stderr) || "no answer";
    throw new LifecycleError(
      "invalid_argument",
      `--containerized needs a container engine, and none is reachable (${why}); start Docker (or point DOCKER_HOST at one), or run without --containerized`,
    );
  }
  const running = await run(plan.inspect);
  let started = false;
  if (running.code !== 0 || running.stdout.trim() !== "true") {
    // A stopped container of that name would block `docker run --name`.
    await run(plan.remove);
    const created = await run(plan.run);
    if (created.code !== 0) {
      throw new LifecycleError(
        "invalid_argument",
        `could not start the ${plan.engine} container from ${plan.image}: ${firstLine(created.stderr) || `docker exited ${created.code}`}`,
      );
    }
    started = true;
  }
  const published = await run(plan.port);
  const webdriverUrl = publishedWebDriverUrl(published.stdout);
  if (!webdriverUrl) {
    throw new LifecycleError(
      "invalid_argument",
      `the ${plan.name} container publishes no WebDriver port on 127.0.0.1 (${firstLine(published.stderr) || published.stdout.trim()}); remove it with \`docker rm -f ${plan.name}\` and run again`,
    );
  }
  if (!(await waitReady(webdriverUrl))) {
    throw new LifecycleError(
      "timeout",
      `the ${plan.name} container's WebDriver at ${webdriverUrl} did not become ready`,
    );
  }
  return { webdriverUrl, started };
}

async function waitForWebDriver(url: string): Promise<boolean> {
  const deadline = Date.now() + READY_TIMEOUT_MS;
  while (Date.now() < deadline) {
    const ready = await fetch(new URL("status", url), { signal: AbortSignal.timeout(2_000) })
      .then((response) => (response.ok ? (response.json() as Promise<{ value?: { ready?: boolean } }>) : null))
      .then(
        (body) => body?.value?.ready !== false && body !== null,
        () => false,
      );
    if (ready) return true;
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  return false;
}

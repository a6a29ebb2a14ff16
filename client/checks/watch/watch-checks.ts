/**
 * `obs watch`: runs the specs, then polls once a second and re-runs the spec files that
 * changed (all of them when the config file changed). Ctrl+C ends the watch after closing
 * every browser the current run holds.
 */
import { relative } from "node:path";
import { ExitCode } from "../../../shared/exit-codes.js";
import type { BrowserSession } from "../browser/browser-session.js";
import type { RunFlags } from "../config/run-settings.js";
import { type CheckRunner, prepareChecks } from "../run-checks.js";
import { discoverSpecs } from "../spec/spec-discovery.js";
import { changedFiles, type FileStamps, stampFiles } from "./file-stamps.js";

export const POLL_MS = 1000;

export interface WatchIo {
  /** Where the watch says what it does (stderr: stdout carries the run's own output). */
  say(line: string): void;
  /** Ends the watch (Ctrl+C). */
  stop: AbortSignal;
}

export async function watchChecks(
  flags: RunFlags,
  configPath: string | undefined,
  env: NodeJS.ProcessEnv,
  cwd: string,
  io: WatchIo,
): Promise<number> {
  const sessions = new Set<Promise<BrowserSession>>();
  const prepare = () =>
    prepareChecks(flags, configPath, env, cwd, {
      sessions: { began: (session) => sessions.add(session), ended: (session) => sessions.delete(session) },
    });
  let runner: CheckRunner = await prepare();
  const stopped = new Promise<void>((resolve) => {
    if (io.stop.aborted) resolve();
    io.stop.addEventListener("abort", () => resolve(), { once: true });
  });
  const specFiles = () => discoverSpecs(runner.settings.patterns, runner.settings.patternsDir).files;
  const snapshot = (): FileStamps => stampFiles(runner.configPath ? [...specFiles(), runner.configPath] : specFiles());
  const run = async (files?: string[]) => {
    try {
      await runner.run(files);
    } catch (error) {
      // A spec that does not load yet (a half-saved edit) must not end the watch.
      io.say(`obs watch: ${(error as Error).message}`);
    }
  };

  let stamps = snapshot();
  await Promise.race([run(), stopped]);
  while (!io.stop.aborted) {
    io.say("obs watch: waiting for changes (Ctrl+C to stop)");
    let changed: string[] = [];
    while (changed.length === 0 && !io.stop.aborted) {
      await Promise.race([new Promise((resolve) => setTimeout(resolve, POLL_MS)), stopped]);
      const next = snapshot();
      changed = changedFiles(stamps, next);
      stamps = next;
    }
    if (io.stop.aborted) break;
    let files: string[] | undefined = changed.filter((file) => file !== runner.configPath);
    if (runner.configPath !== null && changed.includes(runner.configPath)) {
      io.say("obs watch: the config changed; re-running every spec");
      try {
        runner = await prepare();
      } catch (error) {
        io.say(`obs watch: ${(error as Error).message}`);
        continue;
      }
      files = undefined;
      stamps = snapshot();
    } else {
      io.say(`obs watch: re-running ${files.map((file) => relative(cwd, file)).join(", ")}`);
    }
    await Promise.race([run(files), stopped]);
  }
  // Ctrl+C: the run in progress (if any) is abandoned; its browsers, even one still starting,
  // must not outlive it.
  await Promise.all([...sessions].map((session) => session.then((open) => open.close()).catch(() => {})));
  io.say("obs watch: stopped");
  return ExitCode.ok;
}

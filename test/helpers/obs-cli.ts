import { execFile } from "node:child_process";
import { packagePath } from "../../shared/package-root.js";

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs the real `obs` CLI and collects its exit code and output. */
export function runObs(
  args: string[],
  options: { env?: NodeJS.ProcessEnv; cwd?: string; timeoutMs?: number } = {},
): Promise<CliResult> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [packagePath("bin", "obs.js"), ...args],
      {
        env: { ...process.env, ...options.env },
        ...(options.cwd ? { cwd: options.cwd } : {}),
        timeout: options.timeoutMs ?? 30_000,
      },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === "number" ? error.code : 1) : 0;
        resolve({ code, stdout, stderr });
      },
    );
  });
}

/** A port nothing listens on right now. */
export { freePort } from "../../shared/free-port.js";

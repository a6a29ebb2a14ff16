import { execFile } from "node:child_process";
import { delimiter } from "node:path";
import { findOnPath } from "../executables/find-executable.js";
import { LifecycleError } from "../lifecycle/lifecycle-error.js";

/** The coding agent's executable name; obs looks for it on PATH. */
export const AGENT_NAME = "agentcli";

export interface AgentBinary {
  path: string;
  version: string;
}

/** The agent on PATH, or an exit-2 error that names what is missing. */
export function locateAgent(env: NodeJS.ProcessEnv): string {
  const path = findOnPath(AGENT_NAME, env.PATH);
  if (!path) {
    throw new LifecycleError(
      "invalid_argument",
      `${AGENT_NAME} was not found on PATH; install the ${AGENT_NAME} coding agent (its \`${AGENT_NAME}\` executable must be on PATH) and run this again`,
      { searched: (env.PATH ?? "").split(delimiter).filter(Boolean) },
    );
  }
  return path;
}

const VERSION_TIMEOUT_MS = 10_000;

/** Runs `agentcli --version`; its first line, with any leading program name removed, is the version. */
export function agentVersion(path: string, env: NodeJS.ProcessEnv): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(path, ["--version"], { env, timeout: VERSION_TIMEOUT_MS }, (error, stdout, stderr) => {
      const line = String(stdout).trim().split("\n")[0]?.trim() ?? "";
      if (error || line === "") {
        const reason = error ? error.message.split("\n")[0] : "it printed nothing";
        reject(
          new LifecycleError(
            "invalid_argument",
            `${path} --version failed (${reason}); is it a working ${AGENT_NAME} installation?`,
            { path, stderr: String(stderr).trim().slice(0, 500) },
          ),
        );
        return;
      }
      resolve(line.replace(new RegExp(`^${AGENT_NAME}\\s+`, "i"), ""));
    });
  });
}

import { existsSync, lstatSync } from "node:fs";
import type { Server } from "node:net";
import { dirname } from "node:path";
import type { ForwardingStatusRecord } from "../../shared/api-records.js";
import type { RegistryEntry } from "../../shared/control-protocol.js";
import { startControlServer } from "./control-server.js";
import { registryPath, writeRegistry } from "./registry.js";

/** How often a running collector looks for its control socket. */
export const CONTROL_SOCKET_CHECK_MS = 2_000;

export interface ControlSocket {
  close(): void;
}

export interface ControlSocketOptions {
  forwarding?: () => ForwardingStatusRecord[];
  checkEveryMs?: number;
  /** A line for the collector's log: the socket or entry made again, or why it cannot be. */
  onNotice?: (line: string) => void;
  /** Where the registry is (OBS_STATE_DIR). */
  env?: NodeJS.ProcessEnv;
}

/** The socket file at `path` as made (device and inode), or null when there is no socket there. */
function socketFile(path: string): string | null {
  try {
    const stats = lstatSync(path);
    return stats.isSocket() ? `${stats.dev}:${stats.ino}` : null;
  } catch {
    return null;
  }
}

function closed(server: Server): Promise<void> {
  return new Promise((resolve) => server.close(() => resolve()));
}

/**
 * Serves the control socket (control-server.ts) and writes the registry entry that names it
 * (registry.ts), for as long as the collector runs, and makes either again when it goes: a
 * temp-folder cleaner may remove `/tmp/obs-<uid>/<id>.sock`, or the whole folder, and removing
 * `<state>/monitor/run/` takes the entry with it, under a running collector, which obs could
 * then neither find nor stop. Both are looked at every `checkEveryMs`. When the socket path is
 * gone or is not the socket this collector made, the listener is closed (closing removes the
 * path, so it goes first) and a new one made as at start, in a folder checked again
 * (prepareSocketDir: a folder another user made in its place is refused, and said once). A
 * missing entry is written again as at start (writeRegistry: the state folder checked, the file
 * 0600, renamed into place).
 */
export async function serveControlSocket(
  identity: RegistryEntry,
  onShutdown: () => void,
  {
    forwarding = () => [],
    checkEveryMs = CONTROL_SOCKET_CHECK_MS,
    onNotice = () => {},
    env = process.env,
  }: ControlSocketOptions = {},
): Promise<ControlSocket> {
  const path = identity.socketPath;
  let server = await startControlServer(identity, onShutdown, forwarding);
  try {
    writeRegistry(identity, env);
  } catch (error) {
    server.close();
    throw error;
  }
  const entryPath = registryPath(identity.instanceId, env);
  let made = socketFile(path);
  let stopped = false;
  let remaking = false;
  let failing = false;
  let failingEntry = false;
  const keepRegistered = () => {
    if (stopped || existsSync(entryPath)) return;
    try {
      writeRegistry(identity, env);
      onNotice(`obsd: the registry entry ${entryPath} was removed; wrote it again`);
      failingEntry = false;
    } catch (error) {
      if (!failingEntry) {
        onNotice(
          `obsd: warning: the registry entry ${entryPath} was removed and cannot be written again: ${(error as Error).message} (trying again every ${checkEveryMs / 1000} s)`,
        );
      }
      failingEntry = true;
    }
  };
  const remake = async () => {
    await closed(server);
    if (stopped) return;
    server = await startControlServer(identity, onShutdown, forwarding);
    made = socketFile(path);
    // Stopped while the new one was being made: it goes too.
    if (stopped) server.close();
  };
  const check = () => {
    if (stopped || remaking) return;
    if (made !== null && socketFile(path) === made) {
      keepRegistered();
      return;
    }
    remaking = true;
    remake()
      .then(
        () => {
          if (!stopped) onNotice(`obsd: the control socket ${path} was removed; made it again`);
          failing = false;
        },
        (error: Error) => {
          if (!failing) {
            onNotice(
              `obsd: warning: the control socket ${path} was removed and cannot be made again in ${dirname(path)}: ${error.message} (trying again every ${checkEveryMs / 1000} s; obs monitor stop can still stop this collector)`,
            );
          }
          failing = true;
        },
      )
      .finally(() => {
        remaking = false;
        keepRegistered();
      });
  };
  const timer = setInterval(check, checkEveryMs);
  timer.unref();
  return {
    close() {
      stopped = true;
      clearInterval(timer);
      server.close();
    },
  };
}

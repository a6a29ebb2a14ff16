import { chmodSync, rmSync } from "node:fs";
import { createServer, type Server, type Socket } from "node:net";
import { dirname } from "node:path";
import pidusage from "pidusage";
import type { ForwardingStatusRecord } from "../../shared/api-records.js";
import type { ControlAnswer, ControlRequest, ProcessUsage, RegistryEntry } from "../../shared/control-protocol.js";
import { PRIVATE_FILE_MODE } from "../../shared/state-dir.js";
import { prepareSocketDir } from "./registry.js";

/** The longest request line accepted; anything longer is not a control request. */
const MAX_LINE = 4096;

/** Parses one request line; null when it is not a known request. */
export function parseControlRequest(line: string): ControlRequest | null {
  try {
    const request = JSON.parse(line) as { op?: unknown };
    if (request.op === "identify" || request.op === "usage" || request.op === "shutdown") return { op: request.op };
  } catch {
    // not JSON: answered as an error below
  }
  return null;
}

/**
 * This process's CPU and memory. Measured here rather than by the CLI: a long-lived process
 * gives pidusage an interval to average CPU over, and `obs monitor status` starts faster
 * without loading it.
 */
async function ownUsage(): Promise<ProcessUsage> {
  const stats = await pidusage(process.pid);
  return { cpuPercent: Math.round(stats.cpu * 10) / 10, memoryBytes: stats.memory };
}

/**
 * Serves the control protocol on a Unix socket (owner-only permissions, in a folder only this
 * user can use: prepareSocketDir throws otherwise). `onShutdown` is called once the shutdown
 * answer has been written.
 */
export function startControlServer(
  identity: RegistryEntry,
  onShutdown: () => void,
  forwarding: () => ForwardingStatusRecord[] = () => [],
): Promise<Server> {
  prepareSocketDir(dirname(identity.socketPath));
  rmSync(identity.socketPath, { force: true });
  const server = createServer((socket: Socket) => {
    let buffer = "";
    socket.setEncoding("utf8");
    socket.setTimeout(5_000, () => socket.destroy());
    socket.on("error", () => socket.destroy());
    socket.on("data", (chunk: string) => {
      buffer += chunk;
      if (buffer.length > MAX_LINE) {
        socket.end(`${JSON.stringify({ ok: false, error: "request too long" } satisfies ControlAnswer)}\n`);
        return;
      }
      let newline = buffer.indexOf("\n");
      while (newline !== -1) {
        const line = buffer.slice(0, newline).trim();
        buffer = buffer.slice(newline + 1);
        const request = parseControlRequest(line);
        if (!request) {
          socket.write(
            `${JSON.stringify({ ok: false, error: 'unknown request: send {"op":"identify"}, {"op":"usage"} or {"op":"shutdown"}' } satisfies ControlAnswer)}\n`,
          );
        } else if (request.op === "identify") {
          socket.write(`${JSON.stringify({ ok: true, op: "identify", identity } satisfies ControlAnswer)}\n`);
        } else if (request.op === "usage") {
          ownUsage().then(
            (usage) => {
              const destinations = forwarding();
              const answer: ControlAnswer = {
                ok: true,
                op: "usage",
                usage,
                ...(destinations.length > 0 ? { forwarding: destinations } : {}),
              };
              socket.write(`${JSON.stringify(answer)}\n`);
            },
            (error: Error) =>
              socket.write(
                `${JSON.stringify({ ok: false, error: `usage: ${error.message}` } satisfies ControlAnswer)}\n`,
              ),
          );
        } else {
          socket.end(
            `${JSON.stringify({ ok: true, op: "shutdown", instanceId: identity.instanceId } satisfies ControlAnswer)}\n`,
            () => onShutdown(),
          );
          return;
        }
        newline = buffer.indexOf("\n");
      }
    });
  });
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(identity.socketPath, () => {
      server.off("error", reject);
      chmodSync(identity.socketPath, PRIVATE_FILE_MODE);
      resolve(server);
    });
  });
}

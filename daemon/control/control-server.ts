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

/** The op a request line names, known or not, so that an error answer can say which it answers. */
function requestedOp(line: string): string | undefined {
  try {
    const request = JSON.parse(line) as { op?: unknown };
    return typeof request?.op === "string" ? request.op : undefined;
  } catch {
    return undefined;
  }
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

/** The answer to one request other than shutdown (which ends the connection: see below). */
async function answerTo(
  request: ControlRequest | null,
  op: string | undefined,
  identity: RegistryEntry,
  forwarding: () => ForwardingStatusRecord[],
): Promise<ControlAnswer> {
  if (!request) {
    return {
      ok: false,
      ...(op !== undefined ? { op } : {}),
      error: 'unknown request: send {"op":"identify"}, {"op":"usage"} or {"op":"shutdown"}',
    };
  }
  if (request.op === "identify") return { ok: true, op: "identify", identity };
  try {
    const usage = await ownUsage();
    const destinations = forwarding();
    return { ok: true, op: "usage", usage, ...(destinations.length > 0 ? { forwarding: destinations } : {}) };
  } catch (error) {
    return { ok: false, op: "usage", error: `usage: ${(error as Error).message}` };
  }
}

const line = (answer: ControlAnswer) => `${JSON.stringify(answer)}\n`;

/**
 * Serves the control protocol on a Unix socket (owner-only permissions, in a folder only this
 * user can use: prepareSocketDir throws otherwise). `onShutdown` is called once the shutdown
 * answer has been written. Requests on one connection are answered in the order they came,
 * though some answers (usage) take longer to make than others: a client that sends several in
 * one write reads each answer on the line its request had.
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
    // Each answer is written once every answer before it has been; nothing after the end.
    let previous: Promise<void> = Promise.resolve();
    let ended = false;
    const end = (answer: ControlAnswer, then?: () => void) => {
      ended = true;
      void previous.then(() => socket.end(line(answer), then));
    };
    socket.setEncoding("utf8");
    socket.setTimeout(5_000, () => socket.destroy());
    socket.on("error", () => socket.destroy());
    socket.on("data", (chunk: string) => {
      if (ended) return;
      buffer += chunk;
      let newline = buffer.indexOf("\n");
      while (newline !== -1 && newline <= MAX_LINE) {
        const text = buffer.slice(0, newline).trim();
        buffer = buffer.slice(newline + 1);
        const request = parseControlRequest(text);
        if (request?.op === "shutdown") {
          end({ ok: true, op: "shutdown", instanceId: identity.instanceId }, onShutdown);
          return;
        }
        const answer = answerTo(request, requestedOp(text), identity, forwarding);
        previous = Promise.all([answer, previous]).then(([made]) => {
          if (!socket.destroyed) socket.write(line(made));
        });
        newline = buffer.indexOf("\n");
      }
      if (newline > MAX_LINE || (newline === -1 && buffer.length > MAX_LINE))
        end({ ok: false, error: "request too long" });
    });
  });
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(identity.socketPath, () => {
      server.off("error", reject);
      try {
        chmodSync(identity.socketPath, PRIVATE_FILE_MODE);
      } catch (error) {
        // A socket that cannot be made owner-only is not served (closing removes it).
        server.close();
        reject(error);
        return;
      }
      resolve(server);
    });
  });
}

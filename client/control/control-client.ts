import { connect } from "node:net";
import type { ControlAnswer, ControlRequest } from "../../shared/control-protocol.js";

export class ControlError extends Error {
  override name = "ControlError";
}

/**
 * Sends one request to a collector's control socket and reads its answer. Fails within
 * `timeoutMs` when nothing answers (a stale socket of a collector that is gone), so callers
 * such as shell prompts never hang.
 */
export function askCollector(socketPath: string, request: ControlRequest, timeoutMs = 1_000): Promise<ControlAnswer> {
  return new Promise((resolve, reject) => {
    const socket = connect(socketPath);
    let buffer = "";
    const fail = (message: string) => {
      socket.destroy();
      reject(new ControlError(message));
    };
    const timer = setTimeout(() => fail(`no answer from ${socketPath} within ${timeoutMs} ms`), timeoutMs);
    socket.setEncoding("utf8");
    socket.on("connect", () => socket.write(`${JSON.stringify(request)}\n`));
    socket.on("data", (chunk: string) => {
      buffer += chunk;
      const newline = buffer.indexOf("\n");
      if (newline === -1) return;
      clearTimeout(timer);
      socket.end();
      try {
        resolve(JSON.parse(buffer.slice(0, newline)) as ControlAnswer);
      } catch {
        reject(new ControlError(`not a control answer from ${socketPath}`));
      }
    });
    socket.on("error", (error: NodeJS.ErrnoException) => {
      clearTimeout(timer);
      fail(`cannot reach ${socketPath}: ${error.code ?? error.message}`);
    });
  });
}

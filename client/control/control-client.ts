import { connect } from "node:net";
import type { ControlAnswer, ControlRequest } from "../../shared/control-protocol.js";

/**
 * Why a control request failed: nothing listens at the socket (`unreachable`: the file is gone or
 * refuses connections, so its collector is gone), no answer in time (`timeout`: a collector that
 * is stopped or busy, which may answer later), or an answer that is not one (`malformed`).
 */
export type ControlFailure = "unreachable" | "timeout" | "malformed";

export class ControlError extends Error {
  override name = "ControlError";
  constructor(
    message: string,
    readonly failure: ControlFailure = "malformed",
  ) {
    super(message);
  }
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
    const fail = (message: string, failure: ControlFailure) => {
      socket.destroy();
      reject(new ControlError(message, failure));
    };
    const timer = setTimeout(() => fail(`no answer from ${socketPath} within ${timeoutMs} ms`, "timeout"), timeoutMs);
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
      // A socket file that is gone or refuses connections has no collector behind it; any other
      // failure (too many connections waiting, say) says nothing of whether one is there.
      const gone = error.code === "ENOENT" || error.code === "ECONNREFUSED" || error.code === "ENOTSOCK";
      fail(`cannot reach ${socketPath}: ${error.code ?? error.message}`, gone ? "unreachable" : "timeout");
    });
  });
}

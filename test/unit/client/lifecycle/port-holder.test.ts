import { spawn } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { expect } from "chai";
import { unlistenableError } from "../../../../client/lifecycle/port-holder.js";
import type { RegistryEntry } from "../../../../shared/control-protocol.js";

const inUse = { code: "EADDRINUSE", message: "" };

function entryFor(pid: number): RegistryEntry {
  return {
    instanceId: "ab".repeat(16),
    pid,
    cwd: "/project",
    host: "127.0.0.1",
    port: 4318,
    baseUrl: "http://127.0.0.1:4318",
    dbPath: "/project/telemetry.sqlite",
    version: "0.1.0",
    startedAt: new Date().toISOString(),
    socketPath: `/state/monitor/run/${"ab".repeat(16)}.sock`,
  };
}

describe("the error for a port held by one of this user's collectors", () => {
  it("tells to stop a collector that answers", () => {
    const entry = entryFor(process.pid);
    const error = unlistenableError(inUse, "127.0.0.1", 4318, { running: [entry], unresponsive: [] });
    expect(error.message).to.include(`Stop it (obs monitor stop --base-url ${entry.baseUrl})`);
  });

  it("tells to resume a stopped one (kill -CONT), which `monitor stop` cannot stop", async function () {
    if (!existsSync("/proc/self/stat")) this.skip(); // no /proc to tell a stopped process by
    const sleeper = spawn("sleep", ["10"], { stdio: "ignore" });
    const pid = sleeper.pid as number;
    try {
      sleeper.kill("SIGSTOP");
      const state = () => {
        const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
        return stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3);
      };
      for (let waited = 0; state() !== "T"; waited += 10) {
        if (waited > 5_000) throw new Error(`process ${pid} did not stop`);
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      const entry = entryFor(pid);
      // Its socket accepts without answering; or gone, as a temp cleaner may leave it.
      for (const withoutSocket of [[], [entry]]) {
        const error = unlistenableError(inUse, "127.0.0.1", 4318, {
          running: [],
          unresponsive: [entry],
          withoutSocket,
        });
        expect(error.message).to.include(`kill -CONT ${pid}`).and.not.include("Stop it (obs monitor stop");
      }
    } finally {
      sleeper.kill("SIGKILL");
    }
  });

  it("tells one that does not answer on its socket that it may be stopped or busy", () => {
    const entry = entryFor(process.pid);
    const error = unlistenableError(inUse, "127.0.0.1", 4318, {
      running: [],
      unresponsive: [entry],
      withoutSocket: [],
    });
    expect(error.message).to.include(`kill -CONT ${process.pid}`).and.not.include("Stop it (obs monitor stop");
  });
});

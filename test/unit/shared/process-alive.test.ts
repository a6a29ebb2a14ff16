import { spawn } from "node:child_process";
import { once } from "node:events";
import { existsSync, readFileSync } from "node:fs";
import { expect } from "chai";
import { processStartMs } from "../../../shared/proc-stat.js";
import { processAlive, sameProcessAlive } from "../../../shared/process-alive.js";

describe("whether a process is alive", () => {
  const kill = process.kill;
  afterEach(() => {
    process.kill = kill;
  });

  const failingWith = (code: string) => {
    process.kill = (() => {
      throw Object.assign(new Error(code), { code });
    }) as typeof process.kill;
  };

  it("is alive when it may not be signalled (another user's), gone when there is no such process", () => {
    failingWith("EPERM");
    expect(processAlive(12345)).to.equal(true);
    failingWith("ESRCH");
    expect(processAlive(12345)).to.equal(false);
  });

  it("says this process is alive", () => {
    expect(processAlive(process.pid)).to.equal(true);
  });

  it("says a process that exited but was not yet reaped (a zombie) is gone, on Linux", async function () {
    if (!existsSync("/proc/self/stat")) this.skip(); // no /proc to read a process's state from
    // A detached collector's parent is init once `obs` has exited; an init that reaps late (or
    // never, as a container's first process may) leaves the exited collector a zombie, which
    // signal 0 still reaches: `obs monitor stop` waited for it until its timeout.
    // `sh` starts a child in the background, prints its pid, and becomes `sleep`, which never
    // reaps it. The child exits only once its parent is `sleep` ($$ in it is its parent's pid):
    // one that exited sooner could be reaped by `sh` before the exec, and be no zombie at all.
    const script =
      'child() { while [ "$(cat /proc/$$/comm)" != sleep ]; do sleep 0.01; done; }; child & echo $!; exec sleep 10';
    const parent = spawn("sh", ["-c", script], { stdio: ["ignore", "pipe", "ignore"] });
    try {
      const [line] = (await once(parent.stdout, "data")) as [Buffer];
      const pid = Number(line.toString().trim());
      const state = () => {
        const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
        return stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3);
      };
      for (let waited = 0; state() !== "Z"; waited += 10) {
        if (waited > 5_000) throw new Error(`process ${pid} did not become a zombie (state ${state()})`);
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      expect(processAlive(pid)).to.equal(false);
      expect(processAlive(parent.pid as number)).to.equal(true);
    } finally {
      parent.kill();
    }
  });

  it("tells the process that recorded its start from a later one given the same pid, on Linux", function () {
    if (!existsSync("/proc/self/stat")) this.skip();
    const started = processStartMs(process.pid) as number;
    // This process started within the last few minutes of the test run, and before now.
    expect(started).to.be.within(Date.now() - 30 * 60_000, Date.now() + 1_000);
    const recorded = new Date(started + 500).toISOString();
    expect(sameProcessAlive(process.pid, recorded)).to.equal(true);
    // Its pid recorded by a process that started a minute before this one: not this one.
    expect(sameProcessAlive(process.pid, new Date(started - 60_000).toISOString())).to.equal(false);
    // No time to compare: an alive pid is taken for it.
    expect(sameProcessAlive(process.pid, undefined)).to.equal(true);
    expect(sameProcessAlive(999_999_999, recorded)).to.equal(false);
  });
});

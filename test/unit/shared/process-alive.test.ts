import { spawn } from "node:child_process";
import { once } from "node:events";
import { existsSync, readFileSync } from "node:fs";
import { expect } from "chai";
import {
  ownStartTicks,
  processAlive,
  processStopped,
  startIdentity,
  startsReadable,
} from "../../../shared/process-alive.js";

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

  it("tells the process that recorded its start after boot from a later one given the same pid, on Linux", function () {
    if (!existsSync("/proc/self/stat")) this.skip();
    const own = ownStartTicks() as number;
    expect(own).to.be.a("number").above(0);
    expect(startsReadable()).to.equal(true);
    expect(startIdentity(process.pid, own)).to.equal("same");
    // Its pid recorded by a process that started a tick before or after this one: not this one.
    expect(startIdentity(process.pid, own - 1)).to.equal("other");
    expect(startIdentity(process.pid, own + 1)).to.equal("other");
    // No start recorded (an entry an older obs wrote), or no such process: nothing to tell by.
    expect(startIdentity(process.pid, undefined)).to.equal("unknown");
    expect(startIdentity(999_999_999, own)).to.equal("unknown");
  });

  it("tells a stopped process (SIGSTOP) from a running one, on Linux", async function () {
    if (!existsSync("/proc/self/stat")) this.skip();
    const sleeper = spawn("sleep", ["10"], { stdio: "ignore" });
    const pid = sleeper.pid as number;
    try {
      expect(processStopped(pid)).to.equal(false);
      sleeper.kill("SIGSTOP");
      for (let waited = 0; !processStopped(pid); waited += 10) {
        if (waited > 5_000) throw new Error(`process ${pid} did not stop`);
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
    } finally {
      sleeper.kill("SIGKILL");
    }
  });
});

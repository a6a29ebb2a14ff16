import { expect } from "chai";
import { processAlive } from "../../../client/lifecycle/process-alive.js";

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
});

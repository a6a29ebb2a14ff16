import { execFileSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { expect } from "chai";
import { fixAllocatorThreshold, MMAP_THRESHOLD_BYTES } from "../../../daemon/process-allocator.js";

const MODULE = fileURLToPath(new URL("../../../daemon/process-allocator.js", import.meta.url));

/**
 * In a process of its own: frees one 20 MiB block (glibc then raises its thresholds to it by
 * default), then touches eight 3 MiB blocks and frees them. Answers the MiB resident while the
 * blocks lived and after they were freed, beyond what was resident before them.
 */
function residentAfterFree(fix: boolean): { held: number; afterFree: number } {
  const script = `
    import { readFileSync } from "node:fs";
    import { fixAllocatorThreshold } from ${JSON.stringify(MODULE)};
    if (${fix} && !fixAllocatorThreshold()) throw new Error("not fixed");
    const rss = () => Number(/VmRSS:\\s+(\\d+)/.exec(readFileSync("/proc/self/status", "utf8"))[1]) / 1024;
    const touch = (b) => { for (let i = 0; i < b.length; i += 4096) b[i] = 1; return b; };
    // V8 frees array buffers' memory on a thread of its own after a collection: wait for it.
    const collect = async () => { gc(); await new Promise((r) => setTimeout(r, 200)); gc(); await new Promise((r) => setTimeout(r, 200)); };
    let big = touch(Buffer.allocUnsafeSlow(20 << 20));
    big = null; await collect();
    const base = rss();
    let blocks = Array.from({ length: 8 }, () => touch(Buffer.allocUnsafeSlow(3 << 20)));
    const held = rss() - base;
    blocks = null; await collect();
    console.log(JSON.stringify({ held, afterFree: rss() - base }));
  `;
  const out = execFileSync(process.execPath, ["--expose-gc", "--input-type=module", "-e", script], {
    encoding: "utf8",
  });
  return JSON.parse(out) as { held: number; afterFree: number };
}

describe("the allocator's threshold for large blocks (process-allocator)", () => {
  it("is fixed where the native module is built on glibc, as on the machines obs is tested on", () => {
    expect(fixAllocatorThreshold(), "npm install builds the native module").to.equal(true);
    expect(MMAP_THRESHOLD_BYTES).to.equal(1024 * 1024);
  });

  it("gives freed blocks back to the system after a larger one was freed, which glibc alone keeps", () => {
    const fixed = residentAfterFree(true);
    expect(fixed.held, "the blocks were resident").to.be.at.least(20);
    expect(fixed.afterFree, "MiB still resident").to.be.within(-4, 4);
    // Without the setting the same blocks stay: what the setting is for.
    const alone = residentAfterFree(false);
    expect(alone.afterFree, "MiB still resident without it").to.be.at.least(12);
  });
});

import { rmSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { expect } from "chai";
import { changedFiles, stampFiles } from "../../../../client/checks/watch/file-stamps.js";
import { tempDir } from "../../../helpers/temp-dir.js";

describe("obs watch change detection", () => {
  let dir: ReturnType<typeof tempDir>;
  beforeEach(() => {
    dir = tempDir("obs-stamps-");
  });
  afterEach(() => dir.cleanup());

  it("names new and edited files, in path order, and forgets deleted ones", () => {
    const [a, b, c] = ["b.obs.ts", "a.obs.ts", "c.obs.ts"].map((name) => join(dir.path, name)) as [
      string,
      string,
      string,
    ];
    writeFileSync(a, "one");
    writeFileSync(b, "one");
    const before = stampFiles([a, b, c]);
    expect([...before.keys()]).to.deep.equal([a, b]);
    expect(changedFiles(before, stampFiles([a, b, c]))).to.deep.equal([]);
    // An edit that keeps the modification time (a fast save) still changes the size.
    const mtime = new Date(Date.now() - 60_000);
    utimesSync(a, mtime, mtime);
    const touched = stampFiles([a, b]);
    writeFileSync(a, "one, two");
    utimesSync(a, mtime, mtime);
    writeFileSync(c, "new");
    rmSync(b);
    expect(changedFiles(touched, stampFiles([a, b, c]))).to.deep.equal([a, c].sort());
  });
});

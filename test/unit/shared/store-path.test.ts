import { mkdirSync, realpathSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { expect } from "chai";
import { resolvedStorePath, sameStore } from "../../../shared/store-path.js";
import { tempDir } from "../../helpers/temp-dir.js";

describe("store paths compared by real path", () => {
  let dir: ReturnType<typeof tempDir>;
  let root: string;
  beforeEach(() => {
    dir = tempDir();
    root = realpathSync(dir.path);
    mkdirSync(join(root, "real"));
    symlinkSync(join(root, "real"), join(root, "linked"));
  });
  afterEach(() => dir.cleanup());

  it("a symlink to the store file is the same store", () => {
    writeFileSync(join(root, "real", "t3.sqlite"), "");
    symlinkSync(join(root, "real", "t3.sqlite"), join(root, "link.sqlite"));
    expect(sameStore(join(root, "link.sqlite"), join(root, "real", "t3.sqlite"))).to.equal(true);
  });

  it("a store not created yet resolves through its nearest existing folder", () => {
    expect(resolvedStorePath(join(root, "linked", "new", "t.sqlite"))).to.equal(join(root, "real", "new", "t.sqlite"));
    expect(sameStore(join(root, "linked", "t.sqlite"), join(root, "real", "t.sqlite"))).to.equal(true);
  });

  it("two files in one folder are different stores", () => {
    expect(sameStore(join(root, "linked", "a.sqlite"), join(root, "real", "b.sqlite"))).to.equal(false);
  });
});

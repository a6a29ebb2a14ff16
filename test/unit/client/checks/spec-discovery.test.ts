import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { expect } from "chai";
import { discoverSpecs, isSpecFile } from "../../../../client/checks/spec/spec-discovery.js";
import { tempDir } from "../../../helpers/temp-dir.js";

describe("browser-check spec discovery", () => {
  let dir: ReturnType<typeof tempDir>;
  const files = [
    "a.obs.ts",
    "tests/login.obs.ts",
    "tests/cart.obs.tsx",
    "tests/deep/checkout.agent.mjs",
    "tests/helper.ts",
    "tests/notes.obs.md",
    "other/x.obs.cts",
    "node_modules/pkg/t.obs.ts",
    "dist/t.obs.ts",
    ".obs/t.obs.ts",
    ".git/t.obs.ts",
    "tests/node_modules/t.obs.ts",
    "explicit.ts",
  ];
  before(() => {
    dir = tempDir();
    for (const file of files) {
      mkdirSync(dirname(join(dir.path, file)), { recursive: true });
      writeFileSync(join(dir.path, file), "");
    }
  });
  after(() => dir.cleanup());

  const relativeFiles = (patterns: string[]) =>
    discoverSpecs(patterns, dir.path).files.map((file) => file.slice(dir.path.length + 1));

  it("recognises spec file names exactly as the spec's two patterns", () => {
    for (const name of ["a.obs.ts", "a.obs.tsx", "a.obs.mjs", "a.obs.cts", "a.agent.js", "a.agent.jsx"]) {
      expect(isSpecFile(name), name).to.equal(true);
    }
    for (const name of ["a.ts", "a.obs.md", "a.obs.ts.bak", "obs.ts", "a.agents.ts", "a.obs.tsxx"]) {
      expect(isSpecFile(name), name).to.equal(false);
    }
  });

  it("defaults find .obs.ts and .obs.tsx files and skip node_modules, dist, .obs and .git", () => {
    expect(relativeFiles(["**/*.obs.ts", "**/*.obs.tsx"])).to.deep.equal([
      "a.obs.ts",
      "tests/login.obs.ts",
      "tests/cart.obs.tsx",
    ]);
  });

  it("takes a directory recursively, with every spec kind, still skipping the four folders", () => {
    expect(relativeFiles(["tests"])).to.deep.equal([
      "tests/cart.obs.tsx",
      "tests/deep/checkout.agent.mjs",
      "tests/login.obs.ts",
    ]);
  });

  it("takes an existing file as given, and keeps pattern order without duplicates", () => {
    expect(relativeFiles(["explicit.ts", "tests/login.obs.ts", "tests", "other/*.obs.*"])).to.deep.equal([
      "explicit.ts",
      "tests/login.obs.ts",
      "tests/cart.obs.tsx",
      "tests/deep/checkout.agent.mjs",
      "other/x.obs.cts",
    ]);
  });

  it("reports patterns that match nothing", () => {
    expect(discoverSpecs(["missing/*.obs.ts", "tests"], dir.path).unmatched).to.deep.equal(["missing/*.obs.ts"]);
  });
});

import { writeFileSync } from "node:fs";
import { expect } from "chai";
import type { CacheEntry } from "../../../../../client/checks/cache/action-cache.js";
import { cachePath, loadCache, saveCache } from "../../../../../client/checks/cache/cache-file.js";
import { tempDir } from "../../../../helpers/temp-dir.js";

const entry = (key: string): CacheEntry => ({
  key,
  test: "shop.obs.ts > totals the cart",
  kind: "act",
  instruction: "add the blue mug to the cart",
  actions: [
    { tool: "click", args: {}, target: { tag: "button", role: "button", type: null, label: "Add", nth: 0 } },
    { tool: "done", args: { evidence: "added" }, target: null },
  ],
  finalFingerprint: null,
  result: "added",
  recordedAt: "2026-12-02T10:00:00.000Z",
});

describe("the action cache's file", () => {
  let dir: ReturnType<typeof tempDir>;
  beforeEach(() => {
    dir = tempDir("obs-cache-file-");
  });
  afterEach(() => dir.cleanup());

  it("reads back what it wrote", () => {
    const cache = loadCache(dir.path, "read-write", () => {});
    cache.put(entry("a"));
    saveCache(dir.path, cache);
    const warnings: string[] = [];
    expect(loadCache(dir.path, "read-write", (line) => warnings.push(line)).get("a")).to.deep.equal(entry("a"));
    expect(warnings).to.deep.equal([]);
  });

  it("drops an entry it cannot replay, with a warning, and keeps the others", () => {
    const broken = [
      { ...entry("b"), actions: null },
      { ...entry("c"), kind: "look" },
      { ...entry("d"), actions: [{ tool: "click", args: {}, target: { tag: "a" } }] },
      "not an entry",
    ];
    writeFileSync(
      cachePath(dir.path),
      JSON.stringify({ schema_version: "obs.action-cache/v1", entries: [entry("a"), ...broken] }),
      { mode: 0o600 },
    );
    const warnings: string[] = [];
    const cache = loadCache(dir.path, "read-write", (line) => warnings.push(line));
    expect(cache.get("a")).to.deep.equal(entry("a"));
    for (const key of ["b", "c", "d"]) expect(cache.get(key), key).to.equal(null);
    expect(warnings).to.deep.equal([
      `obs: ignoring 4 of the 5 entries of the action cache ${cachePath(dir.path)} (not as schemas/checks/action-cache.json describes them); they will be recorded again`,
    ]);
  });

  it("ignores a file that is not a cache at all, with a warning", () => {
    writeFileSync(cachePath(dir.path), "null", { mode: 0o600 });
    const warnings: string[] = [];
    loadCache(dir.path, "read-write", (line) => warnings.push(line));
    expect(warnings).to.have.length(1);
    expect(warnings[0]).to.match(/ignoring the action cache .*not an obs\.action-cache\/v1 document/);
  });
});

import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { gzipSync } from "node:zlib";
import { expect } from "chai";
import { packagePath } from "../../../shared/package-root.js";

/** Issue 37's cap on the whole UI, gzipped: what a browser downloads for the first page. */
const CAP_BYTES = 250 * 1024;

/**
 * Every file the page can load from dist/web (built by scripts/build-web.js, which `npm test`
 * runs first): html, js and css at any depth, so a split chunk would count too. Source maps and
 * license texts are left out, as the build's own count leaves them: the page never loads them.
 */
function pageFiles(root: string): string[] {
  return readdirSync(root, { recursive: true, encoding: "utf8" })
    .filter((name) => /\.(?:html|js|css)$/.test(name))
    .map((name) => join(root, name))
    .sort();
}

describe("the web UI bundle", () => {
  const root = packagePath("dist", "web");

  it("holds the page, its script and its stylesheet", () => {
    expect(pageFiles(root).map((path) => relative(root, path))).to.include.members([
      "index.html",
      join("assets", "app.js"),
      join("assets", "app.css"),
    ]);
  });

  it("is under 250 KB gzipped, html, js and css together", () => {
    const sizes = pageFiles(root).map((path) => ({
      file: relative(root, path),
      gzipped: gzipSync(readFileSync(path)).length,
    }));
    const total = sizes.reduce((sum, { gzipped }) => sum + gzipped, 0);
    expect(total, JSON.stringify(sizes)).to.be.greaterThan(0).and.below(CAP_BYTES);
  });
});

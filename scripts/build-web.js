#!/usr/bin/env node
// Bundles the web UI (client/web) into static files under dist/web that obsd serves at `/`:
// index.html, assets/app.js and assets/app.css. esbuild does the bundling (TypeScript, JSX and
// CSS in one pass, no plugins); the type check is `tsc -p client/web/tsconfig.json`, run by
// `npm run build` before this. Everything the page loads is in these files: no CDN, no fonts.
import { copyFileSync, mkdirSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { gzipSync } from "node:zlib";
import { build } from "esbuild";

const root = resolve(import.meta.dirname, "..");
const out = join(root, "dist", "web");

/** The bundle's files and their gzipped sizes, for the build log and the size test. */
export async function buildWeb({ quiet = false } = {}) {
  mkdirSync(join(out, "assets"), { recursive: true });
  await build({
    absWorkingDir: root,
    entryPoints: { app: "client/web/main.tsx" },
    outdir: join(out, "assets"),
    bundle: true,
    format: "esm",
    target: "es2022",
    platform: "browser",
    minify: true,
    sourcemap: "linked",
    jsx: "automatic",
    jsxImportSource: "preact",
    legalComments: "linked",
    logLevel: quiet ? "silent" : "warning",
  });
  copyFileSync(join(root, "client", "web", "index.html"), join(out, "index.html"));
  const sizes = ["index.html", "assets/app.js", "assets/app.css"].map((name) => {
    const bytes = readFileSync(join(out, name));
    return { name, bytes: bytes.length, gzipped: gzipSync(bytes).length };
  });
  if (!quiet) {
    const total = sizes.reduce((sum, file) => sum + file.gzipped, 0);
    process.stdout.write(
      `web UI: ${sizes.map((f) => `${f.name} ${f.gzipped} B`).join(", ")} gzipped; ${total} B in all\n`,
    );
  }
  return sizes;
}

if (process.argv[1] && resolve(process.argv[1]) === resolve(import.meta.filename)) {
  buildWeb().catch((error) => {
    process.stderr.write(`web UI build failed: ${error.message}\n`);
    process.exit(1);
  });
}

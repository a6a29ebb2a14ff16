#!/usr/bin/env node
// The package's `prepare` script: compiles the TypeScript into dist/ (npm run build) only when
// a source is newer than what it compiled to. npm runs `prepare` on `npm install` in the
// checkout, and also whenever it links the checkout (`npm link`, `npx obs` from this folder):
// an up-to-date dist/ must not be deleted and rebuilt for that.
import { spawnSync } from "node:child_process";
import { existsSync, readdirSync, statSync } from "node:fs";
import { join, relative, resolve } from "node:path";

const root = resolve(import.meta.dirname, "..");
/** The folders tsconfig.json compiles (its "include"), without its "exclude". */
const FOLDERS = ["daemon", "client", "shared", "test", "bench"];
const EXCLUDED = [join("test", "fixtures"), join("client", "web")];
/** The web UI's sources (client/web) and the bundle they build into (scripts/build-web.js). */
const WEB_SOURCES = join(root, "client", "web");
const WEB_BUNDLE = join(root, "dist", "web", "assets", "app.js");

/** The first TypeScript source whose compiled twin in dist/ is missing or older, or null. */
export function staleSource() {
  for (const folder of FOLDERS) {
    const dir = join(root, folder);
    if (!existsSync(dir)) continue;
    for (const name of readdirSync(dir, { recursive: true }).map(String)) {
      const source = join(dir, name);
      const path = relative(root, source);
      if (!name.endsWith(".ts") || name.endsWith(".d.ts") || EXCLUDED.some((skip) => path.startsWith(skip))) continue;
      const compiled = join(root, "dist", path.replace(/\.ts$/, ".js"));
      if (!existsSync(compiled) || statSync(compiled).mtimeMs < statSync(source).mtimeMs) return path;
    }
  }
  if (!existsSync(WEB_SOURCES)) return null;
  const bundled = existsSync(WEB_BUNDLE) ? statSync(WEB_BUNDLE).mtimeMs : -1;
  for (const name of readdirSync(WEB_SOURCES, { recursive: true }).map(String)) {
    const source = join(WEB_SOURCES, name);
    if (statSync(source).isFile() && statSync(source).mtimeMs > bundled) return relative(root, source);
  }
  return null;
}

if (process.argv[1] && resolve(process.argv[1]) === resolve(import.meta.filename)) {
  const stale = staleSource();
  if (stale === null) {
    process.stdout.write("obs: dist/ is up to date; not rebuilding\n");
  } else {
    const why = existsSync(join(root, "dist")) ? `${stale} changed` : "no dist/ yet";
    process.stdout.write(`obs: building dist/ (${why})\n`);
    const npm = process.env.npm_execpath;
    const result = npm
      ? spawnSync(process.execPath, [npm, "run", "build"], { cwd: root, stdio: "inherit" })
      : spawnSync("npm", ["run", "build"], { cwd: root, stdio: "inherit" });
    process.exit(result.status ?? 1);
  }
}

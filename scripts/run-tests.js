#!/usr/bin/env node
// Runs the compiled mocha suites under dist/test and ends with the plain summary line
// "N passed, N failed, N skipped", taken from mocha's own run statistics.
//
// Usage: node scripts/run-tests.js [folder-or-file under test/ ...] [--grep PATTERN]
import { existsSync, readdirSync, statSync } from "node:fs";
import { join, relative, resolve } from "node:path";
import Mocha from "mocha";

const root = resolve(import.meta.dirname, "..");
const args = process.argv.slice(2);
let grep;
const targets = [];
for (let i = 0; i < args.length; i++) {
  if (args[i] === "--grep" || args[i] === "-g") grep = args[++i];
  else targets.push(args[i]);
}

function testFiles(path) {
  if (!existsSync(path)) return [];
  if (statSync(path).isFile()) return path.endsWith(".test.js") ? [path] : [];
  return readdirSync(path, { recursive: true })
    .map((name) => join(path, String(name)))
    .filter((file) => file.endsWith(".test.js"))
    .sort();
}

// Targets name sources (test/unit, test/unit/foo.test.ts); run their compiled twins in dist/.
const compiled = (target) => join(root, "dist", relative(root, resolve(target)).replace(/\.ts$/, ".js"));
const files = (targets.length ? targets.map(compiled) : [join(root, "dist", "test")]).flatMap(testFiles);
if (files.length === 0) {
  console.error(`no test files found for ${targets.join(" ") || "test/"}; did the build run?`);
  console.log("0 passed, 1 failed");
  process.exit(1);
}

const mocha = new Mocha({ reporter: "spec", timeout: 20_000, slow: 2_000, ...(grep ? { grep } : {}) });
for (const file of files) mocha.addFile(file);
await mocha.loadFilesAsync();
const runner = mocha.run((failures) => {
  const { passes = 0, failures: failed = 0, pending = 0 } = runner.stats ?? {};
  console.log(`${passes} passed, ${failed} failed${pending ? `, ${pending} skipped` : ""}`);
  process.exit(failures > 0 ? 1 : 0);
});

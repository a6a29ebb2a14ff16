import { createRequire } from "node:module";

/**
 * yargs through its CommonJS build. Its ES module build loads a Unicode width library whose
 * start-up cost would about double the start time of `obs monitor status`, which shell prompts
 * call on every line (docs/PERFORMANCE.md, "CLI start-up").
 */
const require = createRequire(import.meta.url);

export const yargs = require("yargs/yargs") as typeof import("yargs/yargs");

/** The arguments after the program name (what yargs' `hideBin` returns outside Electron). */
export function commandLineArguments(): string[] {
  return process.argv.slice(2);
}

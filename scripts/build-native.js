#!/usr/bin/env node
// The package's `install` script: builds the native OTLP/JSON decoder with node-gyp, unless the
// addon in build/Release is already built from the current sources and loads. npm runs this
// script not only on `npm install` but whenever it links the checkout (`npm link`, and
// `npx obs`, which installs the folder into its cache): those must run the CLI, not rebuild it.
// The addon is optional (without it every request takes the JavaScript decoder), so a failed
// build warns and leaves what was there rather than failing the command that triggered it.
import { spawnSync } from "node:child_process";
import { existsSync, readdirSync, statSync } from "node:fs";
import { createRequire } from "node:module";
import { join, resolve } from "node:path";

const root = resolve(import.meta.dirname, "..");
const addon = join(root, "build", "Release", "otlp_json.node");

/** binding.gyp and every file under native/: what the addon is built from. */
function sources() {
  const native = join(root, "native");
  const files = readdirSync(native, { recursive: true }).map((name) => join(native, String(name)));
  return [join(root, "binding.gyp"), ...files].filter((file) => statSync(file).isFile());
}

/** Built after its newest source, and loadable by this Node. */
export function addonUpToDate() {
  if (!existsSync(addon)) return false;
  const built = statSync(addon).mtimeMs;
  if (sources().some((file) => statSync(file).mtimeMs > built)) return false;
  try {
    createRequire(import.meta.url)(addon);
    return true;
  } catch {
    return false;
  }
}

function nodeGyp(args) {
  // npm names its bundled node-gyp in npm_config_node_gyp; outside npm, the one on PATH.
  const bundled = process.env.npm_config_node_gyp;
  return bundled
    ? spawnSync(process.execPath, [bundled, ...args], { cwd: root, stdio: "inherit" })
    : spawnSync("node-gyp", args, { cwd: root, stdio: "inherit" });
}

if (process.argv[1] && resolve(process.argv[1]) === resolve(import.meta.filename)) {
  if (addonUpToDate()) {
    process.stdout.write("obs: the native JSON decoder is built and up to date; not rebuilding\n");
  } else {
    // configure + build, not rebuild: rebuild deletes build/ first, so a failed build would
    // leave nothing behind.
    const configured = nodeGyp(["configure", "--loglevel=warn"]);
    const built = configured.status === 0 ? nodeGyp(["build", "--loglevel=warn"]) : configured;
    if (built.status !== 0) {
      process.stderr.write(
        "obs: warning: the native JSON decoder could not be built (node-gyp failed); obs works without it, decoding every request in JavaScript\n",
      );
    }
  }
}

import { existsSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { LifecycleError } from "../../lifecycle/lifecycle-error.js";
import { schemaValidator } from "../../validation/schema-validator.js";
import { importTypeScript } from "../spec/module-loader.js";
import { findConfig } from "./config-location.js";
import type { ObsConfig } from "./config-model.js";

export { CONFIG_NAMES, findConfig } from "./config-location.js";

export interface LoadedConfig {
  path: string | null;
  /** Relative paths in the config resolve against this folder. */
  dir: string;
  config: ObsConfig;
}

/** The problems with a config object, each naming its field; empty when it is valid. */
export function configProblems(config: unknown): string[] {
  const validate = schemaValidator("checks", "config.json");
  if (validate(config)) return [];
  return (validate.errors ?? []).map((error) => {
    if (error.keyword === "additionalProperties") {
      return `unknown field "${(error.params as { additionalProperty: string }).additionalProperty}"`;
    }
    const field = error.instancePath.replace(/^\//, "").replace(/\//g, ".") || "(the config)";
    const allowed =
      error.keyword === "enum"
        ? `: one of ${(error.params as { allowedValues: unknown[] }).allowedValues.join(", ")}`
        : "";
    return `${field} ${error.message}${allowed}`;
  });
}

/** Loads `-c FILE` or the discovered config; an invalid one is exit 2 naming the field. */
export async function loadConfig(explicitPath: string | undefined, cwd: string): Promise<LoadedConfig> {
  const path = explicitPath ? resolve(cwd, explicitPath) : findConfig(cwd);
  if (!path) return { path: null, dir: cwd, config: {} };
  if (!existsSync(path)) throw new LifecycleError("invalid_config", `config file ${path} does not exist`);
  let module: Record<string, unknown>;
  try {
    module = await importTypeScript(path);
  } catch (error) {
    throw new LifecycleError("invalid_config", `${path} could not be loaded: ${(error as Error).message}`);
  }
  const config = module.default ?? {};
  const problems = configProblems(config);
  if (problems.length > 0) {
    throw new LifecycleError("invalid_config", `${path}: ${problems.join("; ")}`, { path, problems });
  }
  return { path, dir: dirname(path), config: config as ObsConfig };
}

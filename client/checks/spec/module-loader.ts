/**
 * Loads spec and config files written in TypeScript (or JavaScript) with jiti, a real
 * TypeScript loader. `obs/test` is mapped to this obs installation, so specs work when obs is
 * installed globally and the project has no obs dependency.
 */
import { fileURLToPath } from "node:url";
import { createJiti } from "jiti";

const SPEC_API = fileURLToPath(new URL("../spec-api.js", import.meta.url));

export async function importTypeScript(path: string): Promise<Record<string, unknown>> {
  const jiti = createJiti(import.meta.url, {
    alias: { "obs/test": SPEC_API },
    moduleCache: false,
    fsCache: false,
    interopDefault: false,
  });
  return (await jiti.import(path)) as Record<string, unknown>;
}

import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

interface PackageJson {
  name?: string;
  version?: string;
}

/** The obs package folder, found upward from this module (it runs from `dist/shared/`). */
function findPackageRoot(): { root: string; pkg: PackageJson } {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const candidate = join(dir, "package.json");
    if (existsSync(candidate)) {
      const pkg = JSON.parse(readFileSync(candidate, "utf8")) as PackageJson;
      if (pkg.name === "obs") return { root: dir, pkg };
    }
    const parent = dirname(dir);
    if (parent === dir) throw new Error("cannot find the obs package.json above this module");
    dir = parent;
  }
}

const found = findPackageRoot();

export const PACKAGE_ROOT = found.root;
export const OBS_VERSION = found.pkg.version ?? "0.0.0";

/** A path inside the installed package, e.g. `packagePath("schemas", "otlp")`. */
export function packagePath(...parts: string[]): string {
  return join(PACKAGE_ROOT, ...parts);
}

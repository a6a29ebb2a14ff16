import { LifecycleError } from "../../lifecycle/lifecycle-error.js";
import { importTypeScript } from "./module-loader.js";
import { beginCollecting, type DeclaredSpec, endCollecting } from "./test-registry.js";

export interface LoadedSpec extends DeclaredSpec {
  file: string;
}

/** Loads one spec file and returns what it declared. A file that throws is a usage error naming it. */
export async function loadSpec(file: string): Promise<LoadedSpec> {
  const spec = beginCollecting();
  try {
    await importTypeScript(file);
  } catch (error) {
    throw new LifecycleError("invalid_argument", `${file} could not be loaded: ${(error as Error).message}`, { file });
  } finally {
    endCollecting();
  }
  return { file, ...spec };
}

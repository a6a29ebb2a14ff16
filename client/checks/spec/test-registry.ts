/**
 * Where `test()` and the hooks put what a spec file declares while it loads. Spec files are
 * loaded through a TypeScript loader that may evaluate its own copy of the spec API, so the
 * collector lives on a global symbol rather than in module state.
 */
import type { Agent } from "./agent-api.js";

export interface TestContext {
  agent: Agent;
}

export type TestBody = (context: TestContext) => Promise<void> | void;

export interface TestOptions {
  /** Per-test timeout in milliseconds, overriding the run's. */
  timeout?: number;
}

export interface DeclaredTest {
  name: string;
  body: TestBody;
  options: TestOptions;
  skip: boolean;
}

/** beforeAll/afterAll run once per file, outside any test, so they get no browser. */
export type SuiteHook = () => Promise<void> | void;

export interface DeclaredSpec {
  tests: DeclaredTest[];
  beforeAll: SuiteHook[];
  afterAll: SuiteHook[];
  beforeEach: TestBody[];
  afterEach: TestBody[];
}

const REGISTRY_KEY = Symbol.for("obs.checks.spec-registry");

type Holder = { [REGISTRY_KEY]?: DeclaredSpec | null };

export function emptySpec(): DeclaredSpec {
  return { tests: [], beforeAll: [], afterAll: [], beforeEach: [], afterEach: [] };
}

/** Starts collecting the declarations of one spec file. */
export function beginCollecting(): DeclaredSpec {
  const spec = emptySpec();
  (globalThis as Holder)[REGISTRY_KEY] = spec;
  return spec;
}

export function endCollecting(): void {
  (globalThis as Holder)[REGISTRY_KEY] = null;
}

/** The spec being loaded; declaring outside a load (a spec run with plain node) is an error. */
export function collectingSpec(what: string): DeclaredSpec {
  const spec = (globalThis as Holder)[REGISTRY_KEY];
  if (!spec) {
    throw new Error(`${what} can only be called while obs loads a spec file (run it with: obs test <file>)`);
  }
  return spec;
}

/**
 * `obs/test`: what spec files import.
 *
 *   import { test } from "obs/test";
 *   test("signs in", async ({ agent }) => {
 *     await agent.goto("/login");
 *     await agent.act("sign in as ada with %password%", { secrets: { password: process.env.SHOP_PASSWORD ?? "" } });
 *     await agent.check("the page greets ada");
 *   });
 */
import type { ObsConfig } from "./config/config-model.js";
import { collectingSpec, type SuiteHook, type TestBody, type TestOptions } from "./spec/test-registry.js";

export type { ObsConfig } from "./config/config-model.js";
export type { ActOptions, ActResult, Agent, CheckOptions, CheckResult, Secrets } from "./spec/agent-api.js";
export type { TestBody, TestContext, TestOptions } from "./spec/test-registry.js";

/** The longest a Node timer waits: a longer timeout would fire at once. */
const MAX_TIMEOUT_MS = 2_147_483_647;

function declare(name: string, bodyOrOptions: TestBody | TestOptions, maybeBody: TestBody | undefined, skip: boolean) {
  const body = typeof bodyOrOptions === "function" ? bodyOrOptions : maybeBody;
  const options = typeof bodyOrOptions === "function" ? {} : bodyOrOptions;
  if (typeof name !== "string" || name.trim() === "") throw new Error("test() needs a name");
  if (typeof body !== "function") throw new Error(`test("${name}") needs a function`);
  const { timeout } = options as TestOptions;
  if (timeout !== undefined && !(Number.isInteger(timeout) && timeout >= 1 && timeout <= MAX_TIMEOUT_MS)) {
    throw new Error(
      `test("${name}"): timeout must be a whole number of milliseconds from 1 to ${MAX_TIMEOUT_MS}, not ${String(timeout)}`,
    );
  }
  const spec = collectingSpec("test()");
  if (spec.tests.some((existing) => existing.name === name)) {
    throw new Error(`test("${name}") is declared twice in this file; test names must be unique per file`);
  }
  spec.tests.push({ name, body, options, skip });
}

interface TestFunction {
  (name: string, body: TestBody): void;
  (name: string, options: TestOptions, body: TestBody): void;
  /** Declares a test that is listed and reported as skipped, never run. */
  skip(name: string, body: TestBody): void;
}

export const test: TestFunction = Object.assign(
  (name: string, bodyOrOptions: TestBody | TestOptions, body?: TestBody) => declare(name, bodyOrOptions, body, false),
  { skip: (name: string, body: TestBody) => declare(name, body, undefined, true) },
);

function checkedHook<T>(kind: string, body: T): T {
  if (typeof body !== "function") throw new Error(`${kind}() needs a function`);
  return body;
}

/** Runs once before the file's first test, without a browser (seed data, start a server). */
export function beforeAll(body: SuiteHook): void {
  collectingSpec("beforeAll()").beforeAll.push(checkedHook("beforeAll", body));
}
/** Runs once after the file's last test, without a browser. */
export function afterAll(body: SuiteHook): void {
  collectingSpec("afterAll()").afterAll.push(checkedHook("afterAll", body));
}
/** Runs before each test with that test's agent. */
export function beforeEach(body: TestBody): void {
  collectingSpec("beforeEach()").beforeEach.push(checkedHook("beforeEach", body));
}
/** Runs after each test with that test's agent, also when the test failed. */
export function afterEach(body: TestBody): void {
  collectingSpec("afterEach()").afterEach.push(checkedHook("afterEach", body));
}

/** Types `obs.config.ts`; returns the object unchanged. */
export function defineConfig(config: ObsConfig): ObsConfig {
  return config;
}

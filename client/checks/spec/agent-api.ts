/** What a spec's test receives: the browser agent. Types only; the runner implements it. */

/**
 * Values the model must never see: `%name%` in an instruction stands for `secrets.name`. The
 * model reads and writes the placeholder; the browser receives the value; every artifact obs
 * writes shows the placeholder (client/checks/secrets/secret-values.ts).
 */
export type Secrets = Record<string, string>;

export interface ActOptions {
  secrets?: Secrets;
  /**
   * The step may fail: when the instruction cannot be carried out, act() returns `ok: false`
   * instead of failing the test (e.g. "close the cookie banner if there is one").
   */
  optional?: boolean;
}

/** The outcome of `agent.act()`. */
export interface ActResult {
  /** False only for an `optional` act that could not be carried out. */
  ok: boolean;
  summary: string;
  steps: number;
}

/** The verdict on `agent.check()`, with the evidence the model gave. */
export interface CheckResult {
  passed: boolean;
  evidence: string;
  /** A passing verdict's quote of the page, which the runner found on it; null when failed. */
  quote: string | null;
}

export interface CheckOptions {
  /** Return a failed verdict instead of failing the test. */
  soft?: boolean;
  secrets?: Secrets;
}

export interface Agent {
  /** Opens a URL; a relative one is resolved against --base-url. */
  goto(url: string): Promise<void>;
  /**
   * Lets the model carry out an instruction with the browser tools. Fails the test when it
   * cannot (the model calls fail, or insists on done when its last browser action failed or
   * none succeeded), unless `optional`: then it returns `ok: false`.
   */
  act(instruction: string, options?: ActOptions): Promise<ActResult>;
  /**
   * Asks the model whether an assertion holds on the page. A passing verdict must quote the
   * page, and the runner finds the quote on it; a failed check, or a verdict whose quote is not
   * on the page, fails the test unless `soft`.
   */
  check(assertion: string, options?: CheckOptions): Promise<CheckResult>;
  /** The raw webdriverio browser, for anything the agent should not decide. */
  // biome-ignore lint/suspicious/noExplicitAny: webdriverio's Browser type is not loaded into spec typings
  browser: any;
}

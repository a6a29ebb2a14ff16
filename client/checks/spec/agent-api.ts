/** What a spec's test receives: the browser agent. Types only; the runner implements it. */

/** The outcome of `agent.act()`: the model finished the instruction. */
export interface ActResult {
  summary: string;
  steps: number;
}

/** The model's verdict on `agent.check()`, with the evidence it gave. */
export interface CheckResult {
  passed: boolean;
  evidence: string;
}

export interface CheckOptions {
  /** Return a failed verdict instead of failing the test. */
  soft?: boolean;
}

export interface Agent {
  /** Opens a URL; a relative one is resolved against --base-url. */
  goto(url: string): Promise<void>;
  /** Lets the model carry out an instruction with the browser tools. Fails the test when it cannot. */
  act(instruction: string): Promise<ActResult>;
  /** Asks the model whether an assertion holds on the page. A failed check fails the test unless `soft`. */
  check(assertion: string, options?: CheckOptions): Promise<CheckResult>;
  /** The raw webdriverio browser, for anything the agent should not decide. */
  // biome-ignore lint/suspicious/noExplicitAny: webdriverio's Browser type is not loaded into spec typings
  browser: any;
}

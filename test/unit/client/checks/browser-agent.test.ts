import { expect } from "chai";
import { BrowserAgent, InstructionFailed, type TestCache } from "../../../../client/checks/agent/browser-agent.js";
import { ActionCache } from "../../../../client/checks/cache/action-cache.js";
import type { CheckRecord } from "../../../../client/checks/report/run-result.js";
import { SecretValues } from "../../../../client/checks/secrets/secret-values.js";
import { call, loopContext, type ScriptedCall, ScriptedModel, SignInPage } from "./agent-fakes.js";

/** A BrowserAgent over the fake sign-in page, with what it hands to the runner. */
function agentFor(calls: ScriptedCall[], page = new SignInPage(), cacheEntries: TestCache["store"] | null = null) {
  const model = new ScriptedModel(calls);
  const { page: _, ...loop } = loopContext(page, model);
  const checks: CheckRecord[] = [];
  const cache: TestCache = {
    store: cacheEntries ?? new ActionCache("read-write"),
    engine: "engine_a",
    testId: "t",
    drafts: [],
    stats: { hits: 0, misses: 0 },
  };
  const secrets = new SecretValues();
  const agent = new BrowserAgent(
    Object.assign(page, { goto: async (url: string) => url, browser: null }),
    loop,
    checks,
    cache,
    secrets,
  );
  return { agent, model, page, checks, cache, steps: loop.steps, lessons: loop.lessons, secrets };
}

const signIn = (password: string): ScriptedCall[] => [
  call("type", { index: 1, text: "ada" }),
  call("type", { index: 2, text: password }),
  call("click", { index: 3 }),
  call("done", { evidence: "signed in" }),
];

describe("browser agent", () => {
  it("fails the test when an act's target does not exist, naming the failed action", async () => {
    const { agent } = agentFor([
      call("click", { index: -1 }),
      call("done", { evidence: "x" }),
      call("done", { evidence: "x" }),
    ]);
    const failed = await agent.act("press the missing button").catch((error: unknown) => error);
    expect(failed).to.be.instanceOf(InstructionFailed).with.property("kind", "act_failed");
    expect((failed as Error).message).to.equal(
      'could not "press the missing button": the last action failed: click element [-1] (there is no element [-1] in the latest snapshot)',
    );
  });

  it("returns ok: false for an optional act that could not be carried out", async () => {
    const { agent } = agentFor([
      call("click", { index: -1 }),
      call("done", { evidence: "x" }),
      call("done", { evidence: "x" }),
    ]);
    const result = await agent.act("close the cookie banner if there is one", { optional: true });
    expect(result).to.deep.include({ ok: false, steps: 3 });
    expect(result.summary).to.match(/^the last action failed: click element \[-1\]/);
  });

  it("keeps a grounded verdict's quote, and refuses an ungrounded one: soft returns passed false, hard fails", async () => {
    const page = new SignInPage();
    page.signedIn = true;
    const grounded = agentFor([call("done", { quote: "Welcome, ada", evidence: "greeted" })], page);
    expect(await grounded.agent.check("the page greets ada")).to.deep.equal({
      passed: true,
      evidence: "greeted",
      quote: "Welcome, ada",
    });
    expect(grounded.checks).to.deep.equal([
      {
        assertion: "the page greets ada",
        passed: true,
        evidence: "greeted",
        soft: false,
        quote: "Welcome, ada",
        refused: 0,
      },
    ]);

    const insisting = [call("done", { quote: "Total: 40.00" }), call("done", { quote: "Total: 40.00" })];
    const soft = agentFor(insisting, page);
    const verdict = await soft.agent.check("the total is 40.00", { soft: true });
    expect(verdict).to.deep.include({ passed: false, quote: null });
    expect(soft.checks[0]).to.deep.include({ passed: false, quote: null, refused: 2, soft: true });

    const hard = agentFor(insisting, page);
    const failed = await hard.agent.check("the total is 40.00").catch((error: unknown) => error);
    expect(failed).to.be.instanceOf(InstructionFailed).with.property("kind", "check_failed");
    expect((failed as Error).message).to.equal(
      'check failed: "the total is 40.00": the evidence was not on the page (the quote "Total: 40.00" is not on it)',
    );
  });

  it("types a named secret, and stores only its placeholder in steps and the cache entry, which replays it", async () => {
    const first = agentFor(signIn("%password%"));
    await first.agent.act("sign in as ada with %password%", { secrets: { password: "lovelace" } });
    expect(first.page.signedIn).to.equal(true);
    expect(first.model.seen).not.to.include("lovelace");
    expect(JSON.stringify([first.steps, first.cache.drafts])).not.to.include("lovelace");
    expect(first.cache.drafts[0]?.actions[1]).to.deep.include({ tool: "type", args: { text: "%password%" } });

    // The next run replays the entry without the model: the browser gets the value again.
    const store = new ActionCache("read-write", first.cache.drafts);
    const replay = agentFor([], new SignInPage(), store);
    await replay.agent.act("sign in as ada with %password%", { secrets: { password: "lovelace" } });
    expect(replay.cache.stats).to.deep.equal({ hits: 1, misses: 0 });
    expect(replay.model.requests).to.have.length(0);
    expect(replay.page.signedIn).to.equal(true);
    expect(JSON.stringify(replay.steps)).not.to.include("lovelace");
  });

  it("caches no entry that typed a password no spec named, and redacts it from what it handed out before", async () => {
    const { agent, cache, steps, lessons } = agentFor([
      call("record_lesson", { lesson: "use lovelace" }),
      ...signIn("lovelace"),
    ]);
    await agent.act("sign in as ada with password lovelace");
    expect(cache.drafts).to.deep.equal([]);
    // The first step and the lesson were handed out before the password was typed.
    expect(JSON.stringify([steps, lessons])).not.to.include("lovelace");
    expect(steps[0]?.instruction).to.equal("sign in as ada with password %typed_secret%");
  });

  it("fails an act given a secret shorter than 4 characters, before anything reaches the browser or the model", async () => {
    const { agent, page, model } = agentFor(signIn("%pin%"));
    const failed = await agent.act("sign in with %pin%", { secrets: { pin: "abc" } }).catch((error: unknown) => error);
    expect((failed as Error).message).to.equal(
      'secret "pin": a secret shorter than 4 characters cannot be told apart from ordinary text',
    );
    expect([page.performed, model.requests]).to.deep.equal([[], []]);
  });

  it("learns a plain password an old cache entry replays, shows it nowhere and does not write the entry back", async () => {
    const first = agentFor(signIn("%password%"));
    await first.agent.act("sign in as ada", { secrets: { password: "lovelace" } });
    // As an action-cache.json written before typed passwords were learned would hold it.
    const old = JSON.parse(JSON.stringify(first.cache.drafts).replaceAll("%password%", "lovelace"));
    const replay = agentFor([], new SignInPage(), new ActionCache("read-write", old));
    await replay.agent.act("sign in as ada");
    expect(replay.cache.stats).to.deep.equal({ hits: 1, misses: 0 });
    expect(replay.page.signedIn).to.equal(true);
    expect(JSON.stringify(replay.steps)).not.to.include("lovelace");
    expect(replay.steps[1]?.evidence).to.equal('typed "%typed_secret%" into input[type=password] "Password"');
    expect(replay.cache.drafts).to.deep.equal([]);
  });

  it("replays a cached check only while its quote is on the page", async () => {
    const page = new SignInPage();
    page.signedIn = true;
    const first = agentFor([call("done", { quote: "You are signed in", evidence: "signed in" })], page);
    await first.agent.check("the page says I am signed in");
    const entry = first.cache.drafts[0];
    expect(entry).to.deep.include({ quote: "You are signed in", result: "signed in" });

    const store = new ActionCache("read-write", first.cache.drafts);
    const same = agentFor([], page, store);
    expect(await same.agent.check("the page says I am signed in")).to.deep.include({ passed: true });
    expect(same.cache.stats.hits).to.equal(1);
    // A page without the quote (and so another fingerprint, too): the model is asked, and says fail.
    const other = new SignInPage();
    const missed = agentFor([call("fail", { reason: "a sign-in form" })], other, store);
    expect(await missed.agent.check("the page says I am signed in", { soft: true })).to.deep.include({
      passed: false,
    });
    expect(missed.cache.stats).to.deep.equal({ hits: 0, misses: 1 });
  });
});

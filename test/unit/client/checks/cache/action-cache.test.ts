import { expect } from "chai";
import { type AgentPage, AgentStopped, type StepRecord } from "../../../../../client/checks/agent/agent-loop.js";
import { fingerprintOf } from "../../../../../client/checks/agent/page-snapshot.js";
import type { RawElement, RawSnapshot } from "../../../../../client/checks/agent/snapshot-script.js";
import {
  ActionCache,
  type CacheEntry,
  cachedAction,
  findTarget,
  instructionKey,
} from "../../../../../client/checks/cache/action-cache.js";
import { replayEntry } from "../../../../../client/checks/cache/replay.js";
import { cacheable } from "../../../../../client/checks/run/redacted-artifacts.js";
import { SecretValues } from "../../../../../client/checks/secrets/secret-values.js";

const element = (index: number, label: string, tag = "button", type: string | null = null): RawElement => ({
  index,
  tag,
  role: null,
  type,
  label,
  value: null,
  checked: null,
  disabled: false,
  href: null,
});
const snapshot = (elements: RawElement[], text = ""): RawSnapshot => ({
  url: "http://127.0.0.1:3000/",
  title: "",
  elements,
  elementsTruncated: false,
  text,
  textTruncated: false,
});

/** A page whose snapshots come from a list, recording the actions performed on it. */
function scriptedPage(snapshots: RawSnapshot[]) {
  const performed: string[] = [];
  let at = 0;
  const page: AgentPage = {
    snapshot: async () => snapshots[Math.min(at, snapshots.length - 1)] as RawSnapshot,
    perform: async (tool, args) => {
      performed.push(`${tool} ${JSON.stringify(args)}`);
      at += 1;
      return `${tool} done`;
    },
  };
  return { page, performed };
}

describe("action cache", () => {
  it("keys an instruction by engine, test, kind, text and how many times it came before", () => {
    const key = instructionKey("engine_a", "a.obs.ts > t", "act", "sign in", 0);
    expect(key).to.match(/^[0-9a-f]{32}$/);
    expect(instructionKey("engine_a", "a.obs.ts > t", "act", "sign in", 0)).to.equal(key);
    const others = [
      instructionKey("engine_c", "a.obs.ts > t", "act", "sign in", 0),
      instructionKey("engine_a", "a.obs.ts > u", "act", "sign in", 0),
      instructionKey("engine_a", "a.obs.ts > t", "check", "sign in", 0),
      instructionKey("engine_a", "a.obs.ts > t", "act", "sign in ", 0),
      instructionKey("engine_a", "a.obs.ts > t", "act", "sign in", 1),
    ];
    expect(new Set([key, ...others]).size).to.equal(6);
  });

  it("records what an element is, not its number, and finds the same one among look-alikes", () => {
    const before = [element(1, "Delete"), element(2, "Edit"), element(3, "Delete")];
    const action = cachedAction("click", { index: 3 }, before);
    expect(action).to.deep.equal({
      tool: "click",
      args: {},
      target: { tag: "button", role: null, type: null, label: "Delete", nth: 1 },
    });
    // Renumbered page with a new element first: the second "Delete" is now [7].
    const after = [element(4, "New"), element(5, "Delete"), element(6, "Edit"), element(7, "Delete")];
    const target = action?.target;
    if (!target) throw new Error("the click has no target");
    expect(findTarget(target, after)).to.equal(7);
    expect(findTarget({ tag: "button", role: null, type: null, label: "Delete", nth: 2 }, after)).to.equal(null);
    expect(findTarget({ tag: "a", role: null, type: null, label: "Delete", nth: 0 }, after)).to.equal(null);
    expect(cachedAction("press", { key: "Enter" }, before)).to.deep.equal({
      tool: "press",
      args: { key: "Enter" },
      target: null,
    });
  });

  it("stores entries only when read-write, and finds none when off", () => {
    const entry: CacheEntry = {
      key: "k",
      test: "t",
      kind: "act",
      instruction: "i",
      actions: [],
      finalFingerprint: null,
      result: "ok",
      recordedAt: "2026-11-22T00:00:00.000Z",
    };
    const readOnly = new ActionCache("read-only");
    readOnly.put(entry);
    expect(readOnly.get("k")).to.equal(null);
    expect(readOnly.dirty).to.equal(false);
    const readWrite = new ActionCache("read-write");
    readWrite.put(entry);
    expect(readWrite.get("k")).to.deep.equal(entry);
    expect(readWrite.document().entries).to.have.length(1);
    expect(new ActionCache("off", [entry]).get("k")).to.equal(null);
  });

  describe("replay", () => {
    const context = (page: AgentPage, steps: StepRecord[]) => ({
      page,
      budget: { used: 0, max: null },
      onStep: async (step: StepRecord) => {
        steps.push(step);
      },
    });
    const entry = (overrides: Partial<CacheEntry>): CacheEntry => ({
      key: "k",
      test: "t",
      kind: "act",
      instruction: "delete the second row",
      actions: [
        {
          tool: "click",
          args: {},
          target: { tag: "button", role: null, type: null, label: "Delete", nth: 1 },
        },
      ],
      finalFingerprint: null,
      result: "row deleted",
      recordedAt: "2026-11-22T00:00:00.000Z",
      ...overrides,
    });

    it("performs the recorded actions on the renumbered page and finishes with the recorded evidence", async () => {
      const { page, performed } = scriptedPage([
        snapshot([element(4, "New"), element(5, "Delete"), element(6, "Delete")]),
        snapshot([element(4, "New"), element(5, "Delete")]),
      ]);
      const steps: StepRecord[] = [];
      const result = await replayEntry(entry({}), "act", "delete the second row", context(page, steps));
      expect(result.hit).to.equal(true);
      expect(performed).to.deep.equal(['click {"index":6}']);
      expect(steps.map((step) => [step.tool, step.evidence, step.modelMs, step.pageChanged])).to.deep.equal([
        ["click", "click done", 0, true],
        ["done", "row deleted", 0, false],
      ]);
    });

    it("learns a password an old entry holds in plain text, as the loop would, so no step shows it", async () => {
      const { page, performed } = scriptedPage([snapshot([element(1, "Password", "input", "password")])]);
      page.perform = async (tool, args) => {
        performed.push(`${tool} ${JSON.stringify(args)}`);
        return `typed ${JSON.stringify(args.text)} into input[type=password] "Password"`;
      };
      const secrets = new SecretValues();
      const steps: StepRecord[] = [];
      const old = entry({
        instruction: "sign in",
        actions: [
          {
            tool: "type",
            args: { text: 'hunter"22' },
            target: { tag: "input", role: null, type: "password", label: "Password", nth: 0 },
          },
        ],
        result: "typed the password",
      });
      const result = await replayEntry(old, "act", "sign in", { ...context(page, steps), secrets });
      expect(performed).to.deep.equal(['type {"text":"hunter\\"22","index":1}']);
      expect(result.hit && result.outcome.typedUnnamedSecret).to.equal(true);
      expect(steps[0]?.evidence).to.equal('typed "%typed_secret%" into input[type=password] "Password"');
      expect(steps[0]?.args).to.deep.equal({ text: "%typed_secret%", index: 1 });
      expect(cacheable([old], secrets)).to.deep.equal([]);
    });

    it("misses when the element is gone, doing nothing", async () => {
      const { page, performed } = scriptedPage([snapshot([element(1, "Remove"), element(2, "Remove")])]);
      const result = await replayEntry(entry({}), "act", "delete the second row", context(page, []));
      expect(result).to.deep.equal({
        hit: false,
        reason: 'button "Delete" is no longer on the page',
        performed: [],
      });
      expect(performed).to.deep.equal([]);
    });

    it("stops at the --max-steps cap as the model would, after the steps the cap allows", async () => {
      const { page, performed } = scriptedPage([
        snapshot([element(4, "New"), element(5, "Delete"), element(6, "Delete")]),
        snapshot([element(4, "New"), element(5, "Delete")]),
      ]);
      const steps: StepRecord[] = [];
      const capped = { ...context(page, steps), budget: { used: 0, max: 1 } };
      const stopped = await replayEntry(entry({}), "act", "delete the second row", capped).catch((error) => error);
      expect(stopped).to.be.instanceOf(AgentStopped).with.property("reason", "max_steps");
      expect(stopped.message).to.include('--max-steps cap of 1 steps before "delete the second row"');
      expect(performed).to.deep.equal(['click {"index":6}']);
      expect(steps.map((step) => step.tool)).to.deep.equal(["click"]);
    });

    it("holds a check only on the page it was judged on", async () => {
      const judged = snapshot([], "Welcome, ada");
      const check = entry({
        kind: "check",
        actions: [],
        finalFingerprint: fingerprintOf(judged),
        quote: "Welcome, ada",
      });
      const same = await replayEntry(check, "check", "greets ada", context(scriptedPage([judged]).page, []));
      expect(same.hit).to.equal(true);
      const other = snapshot([], "Welcome, grace");
      const changed = await replayEntry(check, "check", "greets ada", context(scriptedPage([other]).page, []));
      expect(changed).to.deep.include({ hit: false, reason: "the page differs from the one the check was judged on" });
    });
  });
});

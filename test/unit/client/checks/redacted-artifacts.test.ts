import { expect } from "chai";
import type { CacheEntry } from "../../../../client/checks/cache/action-cache.js";
import { cacheable } from "../../../../client/checks/run/redacted-artifacts.js";
import { SecretValues } from "../../../../client/checks/secrets/secret-values.js";

const entry = (instruction: string, text: string): CacheEntry => ({
  key: instruction,
  test: "a.obs.ts > signs in",
  kind: "act",
  instruction,
  actions: [
    {
      tool: "type",
      args: { text },
      target: { tag: "input", role: null, type: "password", label: "Password", nth: 0 },
    },
  ],
  finalFingerprint: null,
  result: `typed ${text}`,
  recordedAt: "2026-11-22T10:00:00.000Z",
});

describe("action-cache entries as they are written", () => {
  it("keeps a named secret as its placeholder and leaves out entries that typed an unnamed one", () => {
    const secrets = new SecretValues();
    secrets.add({ password: "lovelace" });
    secrets.learnTyped("hunter2");
    const kept = cacheable(
      [entry("sign in with %password%", "lovelace"), entry("sign in as bob", "hunter2"), entry("search", "tea")],
      secrets,
    );
    expect(kept.map((item) => item.instruction)).to.deep.equal(["sign in with %password%", "search"]);
    expect(kept[0]?.actions[0]?.args).to.deep.equal({ text: "%password%" });
    expect(kept[0]?.result).to.equal("typed %password%");
    expect(JSON.stringify(kept)).not.to.match(/lovelace|hunter2/);
  });
});

import { expect } from "chai";
import { SecretValues } from "../../../../client/checks/secrets/secret-values.js";

describe("secret redaction", () => {
  it("leaves a placeholder it wrote alone, so text redacted twice (by the agent, then the runner) stays the same", () => {
    const secrets = new SecretValues();
    secrets.add({ password: "pass", token: "okay" });
    secrets.learnTyped("typed");
    const once = secrets.redact("pass, okay and typed");
    expect(once).to.equal("%password%, %token% and %typed_secret%");
    expect(secrets.redact(once)).to.equal(once);
  });

  it("still redacts a value inside text that only looks like a placeholder", () => {
    const secrets = new SecretValues();
    secrets.add({ password: "hunter2" });
    expect(secrets.redact("q=%E2hunter2%20x and %hunter2%")).to.equal("q=%E2%password%%20x and %%password%%");
    expect(secrets.redact("a hunter22 b")).to.equal("a %password%2 b");
  });
});

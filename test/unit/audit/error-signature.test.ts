import { expect } from "chai";
import { normalizeErrorText, signatureText } from "../../../daemon/audit/error-signature.js";

describe("error signatures", () => {
  it("folds numbers, ids and quoted values so repeats of one error match", () => {
    expect(normalizeErrorText("card 4012 declined")).to.equal("card <n> declined");
    expect(normalizeErrorText('user "alice" not found')).to.equal("user <str> not found");
    expect(normalizeErrorText("order 5b8efff798038103 timed out after 3.5s")).to.equal(
      "order <id> timed out after <n>s",
    );
    expect(normalizeErrorText("request 123e4567-e89b-12d3-a456-426614174000 failed")).to.equal("request <id> failed");
    expect(normalizeErrorText("connect ECONNREFUSED 10.0.0.7:5432")).to.equal("connect ECONNREFUSED <n>:<n>");
    expect(normalizeErrorText("  two   spaces\n")).to.equal("two spaces");
  });

  it("uses the status message, else the exception type", () => {
    expect(signatureText("timeout after 30s", "TimeoutError")).to.equal("timeout after <n>s");
    expect(signatureText("", "java.net.SocketException")).to.equal("java.net.SocketException");
    expect(signatureText(null, null)).to.equal("(no message)");
  });

  it("cuts a long message at a whole character, never between a surrogate pair's halves", () => {
    const text = normalizeErrorText(`${"x".repeat(159)}\u{1F600} tail`);
    expect(text).to.equal("x".repeat(159));
    expect(normalizeErrorText(`${"x".repeat(158)}\u{1F600} tail`)).to.equal(`${"x".repeat(158)}\u{1F600}`);
  });
});

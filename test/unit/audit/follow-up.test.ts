import { execFileSync } from "node:child_process";
import { expect } from "chai";
import { obsCommand, shellQuote } from "../../../daemon/audit/follow-up.js";

describe("follow-up commands", () => {
  it("quotes values so the shell hands obs exactly the original text", () => {
    for (const value of ["POST /pay", "it's", "$(rm -rf ~)", 'a"b', "tab\there", "plain-word_1.2"]) {
      const echoed = execFileSync("sh", ["-c", `printf '%s' ${shellQuote(value)}`], { encoding: "utf8" });
      expect(echoed, value).to.equal(value);
    }
    expect(shellQuote("billing")).to.equal("billing");
  });

  it("skips flags without a value", () => {
    expect(obsCommand("traces", ["--service", null], ["--operation", "GET /"], ["--since", "15m"])).to.equal(
      "obs traces --operation 'GET /' --since 15m",
    );
  });
});

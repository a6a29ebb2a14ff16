import { execFileSync } from "node:child_process";
import { expect } from "chai";
import { followUps, obsCommand, shellQuote } from "../../../daemon/audit/follow-up.js";
import { MAX_FILTER_TEXT } from "../../../shared/query-params.js";
import { freePort, runObs } from "../../helpers/obs-cli.js";

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

  it("gives no command for a value longer than a filter takes, and follow-ups leave it out", () => {
    const atCap = "s".repeat(MAX_FILTER_TEXT);
    expect(obsCommand("traces", ["--service", atCap])).to.equal(`obs traces --service ${atCap}`);
    expect(obsCommand("traces", ["--service", `${atCap}s`], ["--since", "5m"])).to.equal(null);
    expect(obsCommand("trace-logs", `${atCap}s`)).to.equal(null);
    expect(followUps(obsCommand("traces", ["--service", `${atCap}s`]), obsCommand("trace", "ab"))).to.deep.equal([
      "obs trace ab",
    ]);
  });

  it("gives a value that starts with a dash to its flag with =, so obs reads it as the value when pasted", async function () {
    this.timeout(30_000);
    const url = `http://127.0.0.1:${await freePort()}`;
    for (const value of ["-x", "--json", "- leading space", "-"]) {
      const command = obsCommand("traces", ["--service", value], ["--since", "5m"]) ?? "";
      // The words the shell hands obs, as a paste would.
      const words = execFileSync("sh", ["-c", `printf '%s\\0' ${command.replace(/^obs /, "")}`], { encoding: "utf8" })
        .split("\0")
        .slice(0, -1);
      expect(words.slice(-2), command).to.deep.equal(["--since", "5m"]);
      // No collector answers there: 3 once the arguments are read, 2 had a flag gone without its value.
      const run = await runObs(words, { env: { OBS_MONITOR_URL: url } });
      expect([run.code, run.stderr], command).to.deep.equal([
        3,
        `obs: no collector answers at ${url} (ECONNREFUSED)\n`,
      ]);
    }
    expect(obsCommand("traces", ["--service", "-x"])).to.equal("obs traces --service=-x");
    expect(obsCommand("traces", ["--operation", "op -v"])).to.equal("obs traces --operation 'op -v'");
  });
});

import { expect } from "chai";
import { severityClass, severityLabel, severityLevel } from "../../../../client/web/format/severity.js";

describe("web logs: severity levels", () => {
  it("takes the level from the OTLP number's range, whatever the text says", () => {
    const levels = [1, 4, 5, 8, 9, 12, 13, 16, 17, 20, 21, 24].map((n) => severityLevel(n, "whatever"));
    expect(levels).to.deep.equal([
      "trace",
      "trace",
      "debug",
      "debug",
      "info",
      "info",
      "warn",
      "warn",
      "error",
      "error",
      "fatal",
      "fatal",
    ]);
    expect(severityLevel(17, "I")).to.equal("error");
  });

  it("reads the text only when the number is unspecified, and knows no level for neither", () => {
    expect(severityLevel(0, "ERROR")).to.equal("error");
    expect(severityLevel(0, "Warning")).to.equal("warn");
    expect(severityLevel(0, "critical")).to.equal("fatal");
    expect(severityLevel(0, null)).to.equal(undefined);
    expect(severityLevel(0, "verbose-ish")).to.equal(undefined);
    expect(severityLevel(99, null)).to.equal(undefined);
  });

  it("labels a record by its own text, else its level, else its number", () => {
    expect(severityLabel(17, "E")).to.equal("E");
    expect(severityLabel(13, null)).to.equal("WARN");
    expect(severityLabel(13, "  ")).to.equal("WARN");
    expect(severityLabel(0, null)).to.equal("–");
    expect(severityLabel(30, null)).to.equal("30");
  });

  it("colours by level: a class per level, and an unset one", () => {
    expect(severityClass(18, null)).to.equal("sev sev-error");
    expect(severityClass(2, "TRACE")).to.equal("sev sev-trace");
    expect(severityClass(0, "?")).to.equal("sev sev-unset");
  });
});

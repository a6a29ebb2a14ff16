import { readFileSync } from "node:fs";
import { expect } from "chai";
import { loadTextWidth, renderTable, safeText } from "../../../client/render/table.js";
import { packagePath } from "../../../shared/package-root.js";
import { importsOf } from "../../helpers/import-graph.js";

describe("human tables", () => {
  it("aligns columns and keeps ids whole", () => {
    const table = renderTable(
      ["TRACE ID", "SERVICE"],
      [
        ["5b8efff798038103d269b633813fc60c", "api"],
        ["a1", "checkout"],
      ],
    );
    expect(table.split("\n")).to.deep.equal([
      "TRACE ID                          SERVICE",
      "5b8efff798038103d269b633813fc60c  api",
      "a1                                checkout",
    ]);
  });

  it("loads string-width only when a command asks: a static import cost every obs command's start", () => {
    const source = readFileSync(packagePath("client", "render", "table.ts"), "utf8");
    const imports = importsOf(source).filter((found) => found.specifier === "string-width");
    expect(imports.map((found) => found.kind)).to.deep.equal(["dynamic"]);
  });

  it("aligns columns by the width text takes on a terminal: wide characters two columns, combining marks none", async () => {
    await loadTextWidth();
    const table = renderTable(
      ["CITY", "SERIES"],
      [
        ["東京都", 1],
        ["e\u0301te\u0301", 2],
        ["paris", 3],
      ],
    );
    // Each SERIES value starts in the same terminal column: after 6 columns of name and 2 spaces.
    expect(table.split("\n")).to.deep.equal(["CITY    SERIES", "東京都  1", "e\u0301te\u0301     2", "paris   3"]);
  });

  it("escapes a header's control characters, as cells' (a group-by key is the user's text)", () => {
    expect(renderTable(["A\u001b[1MB"], [["x"]]).split("\n")[0]).to.equal("A\\x1b[1MB");
  });

  it("makes terminal escape sequences and control characters harmless", () => {
    expect(safeText("\u001b[31mred\u001b[0m\r\n\u0007")).to.equal("\\x1b[31mred\\x1b[0m\\x0d\\x0a\\x07");
    expect(safeText(null)).to.equal("-");
  });

  it("makes bidirectional controls harmless: a right-to-left override cannot make 'nimda' read 'admin'", () => {
    expect(safeText("user \u202enimda\u202c logged in")).to.equal("user \\u202enimda\\u202c logged in");
    expect(safeText("\u2066a\u2069\u200e\u200f\u061c\u2028")).to.equal("\\u2066a\\u2069\\u200e\\u200f\\u061c\\u2028");
    // Letters of right-to-left scripts are text, not controls.
    expect(safeText("שלום")).to.equal("שלום");
  });
});

import { expect } from "chai";
import { renderTable, safeText } from "../../../client/render/table.js";

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

  it("makes terminal escape sequences and control characters harmless", () => {
    expect(safeText("\u001b[31mred\u001b[0m\r\n\u0007")).to.equal("\\x1b[31mred\\x1b[0m\\x0d\\x0a\\x07");
    expect(safeText(null)).to.equal("-");
  });
});

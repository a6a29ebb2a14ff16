import { expect } from "chai";
import { capAttributes, capValue, MAX_VALUE_BYTES } from "../../../daemon/query/value-cap.js";

describe("value cap", () => {
  it("leaves values within the cap as they are", () => {
    const text = "é".repeat(MAX_VALUE_BYTES / 2);
    expect(capValue(text)).to.equal(text);
    expect(capValue(12)).to.equal(12);
    expect(capValue(null)).to.equal(null);
    const map = { a: [1, 2, "x"] };
    expect(capValue(map)).to.equal(map);
  });

  it("cuts a long string to the cap, never inside a character, with a marker naming its size", () => {
    const text = `a${"é".repeat(MAX_VALUE_BYTES)}`;
    const cut = capValue(text) as string;
    const [shown, marker] = cut.split("… [cut by obs: ");
    expect(Buffer.byteLength(shown as string)).to.equal(MAX_VALUE_BYTES - 1);
    expect(text.startsWith(shown as string)).to.equal(true);
    expect(marker).to.equal(`${Buffer.byteLength(text)} bytes, the first ${MAX_VALUE_BYTES - 1} shown]`);
  });

  it("gives a large array or map as the start of its JSON text, marked", () => {
    const big = { items: Array.from({ length: 20_000 }, (_, i) => i) };
    const cut = capValue(big) as string;
    expect(cut.startsWith('{"items":[0,1,2,')).to.equal(true);
    expect(cut).to.match(new RegExp(`cut by obs: ${Buffer.byteLength(JSON.stringify(big))} bytes`));
  });

  it("caps each attribute value, keeping every key", () => {
    const attributes = capAttributes({ small: "x", big: "y".repeat(MAX_VALUE_BYTES + 1) });
    expect(Object.keys(attributes)).to.deep.equal(["small", "big"]);
    expect(attributes.small).to.equal("x");
    expect(attributes.big).to.match(/^y+… \[cut by obs: 32769 bytes, the first 32768 shown\]$/);
  });
});

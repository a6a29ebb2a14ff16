import { expect } from "chai";
import { bodyText, foldedText, valueText } from "../../../../client/web/format/log-body.js";

describe("web logs: bodies as text", () => {
  it("shows strings as themselves, markup included, never interpreted", () => {
    expect(bodyText("<b>hi</b> & bye")).to.deep.equal({ kind: "text", text: "<b>hi</b> & bye" });
  });

  it("shows maps and arrays as indented JSON, keys in the order sent", () => {
    expect(bodyText({ event: "charge.failed", attempt: 1, tags: ["a"] })).to.deep.equal({
      kind: "structured",
      text: '{\n  "event": "charge.failed",\n  "attempt": 1,\n  "tags": [\n    "a"\n  ]\n}',
    });
    expect(bodyText([1, null]).text).to.equal("[\n  1,\n  null\n]");
  });

  it("shows numbers and booleans as written, and says when there is no body", () => {
    expect(bodyText(42.5)).to.deep.equal({ kind: "scalar", text: "42.5" });
    expect(bodyText(false)).to.deep.equal({ kind: "scalar", text: "false" });
    expect(bodyText(null).kind).to.equal("empty");
    expect(bodyText("").kind).to.equal("empty");
  });

  it("folds a long text at a character cap or a line cap, and leaves a short one whole", () => {
    expect(foldedText("short")).to.equal(null);
    expect(foldedText("x".repeat(10), 4)).to.equal("xxxx");
    expect(foldedText("a\nb\nc\nd", 100, 2)).to.equal("a\nb");
    expect(foldedText("a\nb", 100, 2)).to.equal(null);
    expect(foldedText("x".repeat(4), 4)).to.equal(null);
  });

  it("writes attribute values on one line", () => {
    expect(valueText("GET /")).to.equal("GET /");
    expect(valueText(3)).to.equal("3");
    expect(valueText({ a: [1] })).to.equal('{"a":[1]}');
  });
});

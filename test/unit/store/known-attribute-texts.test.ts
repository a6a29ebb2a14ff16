import { expect } from "chai";
import { KnownAttributeTexts } from "../../../daemon/store/known-attribute-texts.js";

describe("attribute texts known by the decoder's numbers", () => {
  it("gives back the text it is given, whatever number comes with it", () => {
    const texts = new KnownAttributeTexts();
    const a = '{"k":"a"}';
    const b = '{"k":"b"}';
    // A set, again; then the same number for another text, as a decoder that restarted gives it.
    expect([
      texts.of(1, a),
      texts.of(1, `{"k":"${"a"}"}`),
      texts.of(1, b),
      texts.of(1, b),
      texts.of(1, a),
    ]).to.deep.equal([a, a, b, b, a]);
    expect([texts.of(0, b), texts.of(0, a), texts.of(2, b)]).to.deep.equal([b, a, b]);
  });

  it("starts over past the characters it may keep", () => {
    const texts = new KnownAttributeTexts(1000);
    let most = 0;
    for (let set = 1; set <= 100; set++) {
      const text = `{"k":"${"x".repeat(100)}${set}"}`;
      expect(texts.of(set, text)).to.equal(text);
      most = Math.max(most, texts.size);
    }
    // A text of about 110 characters costs about 174 with its entry: at most 5 fit in 1,000.
    expect(most).to.be.at.most(5).and.above(1);
  });
});

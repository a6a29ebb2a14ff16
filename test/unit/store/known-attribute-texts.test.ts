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
});

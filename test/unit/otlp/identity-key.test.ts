import { createHash } from "node:crypto";
import { expect } from "chai";
import { identityKey } from "../../../daemon/otlp/identity-key.js";

describe("identity keys", () => {
  it("joins parts with NUL, as stored hashes were made, when no part holds one", () => {
    expect(identityKey(["lib", "1.0", '{"a":1}', 0, ""])).to.equal('lib\u00001.0\u0000{"a":1}\u00000\u0000');
    // The scope hash of a store written before keeps its value.
    const before = createHash("sha1").update("lib\u00001.0\u0000{}\u00000\u0000").digest("hex");
    expect(
      createHash("sha1")
        .update(identityKey(["lib", "1.0", "{}", 0, ""]))
        .digest("hex"),
    ).to.equal(before);
  });

  it("keeps parts apart that a NUL inside one would run together", () => {
    const a = identityKey(["m", "u\u0000gauge\u0000", 1]);
    const b = identityKey(["m\u0000gauge\u0000u", "", 1]);
    expect(a).to.not.equal(b);
    // Nor does a key with a NUL in a part equal any joined key.
    expect(identityKey(["a\u0000b"])).to.not.equal(identityKey(["a", "b"]));
    expect(identityKey(["a\u0000b"])).to.not.include("\u0000");
  });
});

import { expect } from "chai";
import { parseControlRequest } from "../../../daemon/control/control-server.js";

describe("control requests", () => {
  it("accepts identify and shutdown only", () => {
    expect(parseControlRequest('{"op":"identify"}')).to.deep.equal({ op: "identify" });
    expect(parseControlRequest('{"op":"shutdown","extra":1}')).to.deep.equal({ op: "shutdown" });
    for (const line of ['{"op":"exec"}', "identify", "", "[]", '{"op":null}']) {
      expect(parseControlRequest(line), line).to.equal(null);
    }
  });
});

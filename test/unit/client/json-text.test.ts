import { expect } from "chai";
import { jsonDocumentText, prettyJson } from "../../../client/render/json-text.js";

describe("JSON documents of any depth", () => {
  it("writes exactly what JSON.stringify(value, null, 2) writes", () => {
    const value = {
      text: 'quote " and \u2028 and \ud800 and \u001b',
      numbers: [0, -1.5, 1e21, Number.NaN, Number.POSITIVE_INFINITY],
      empty: { list: [], object: {} },
      nothing: null,
      skipped: undefined,
      inArray: [undefined, () => 1, true],
      date: new Date(0),
      nested: [{ a: [{ b: {} }] }],
      'key with "quotes"': 1,
    };
    expect(prettyJson(value)).to.equal(JSON.stringify(value, null, 2));
    for (const scalar of ["x", 1, true, null, [], {}])
      expect(prettyJson(scalar)).to.equal(JSON.stringify(scalar, null, 2));
  });

  it("writes a span tree 20,000 levels deep, where JSON.stringify runs out of stack", () => {
    const root = { spanId: "0", children: [] as unknown[] };
    let node = root;
    for (let depth = 1; depth < 20_000; depth += 1) {
      const child = { spanId: String(depth), children: [] as unknown[] };
      node.children.push(child);
      node = child;
    }
    expect(() => JSON.stringify(root, null, 2)).to.throw(RangeError);
    const text = prettyJson({ tree: [root] });
    expect(text.match(/"spanId"/g)).to.have.length(20_000);
    // Indented as usual near the top, compact below MAX_INDENTED_DEPTH levels: still the same JSON.
    expect(text.startsWith('{\n  "tree": [\n    {\n      "spanId": "0",')).to.equal(true);
    interface Parsed {
      spanId: string;
      children: Parsed[];
    }
    const ids: string[] = [];
    for (let nodes: Parsed[] = JSON.parse(text).tree; nodes[0] !== undefined; nodes = nodes[0].children)
      ids.push(nodes[0].spanId);
    expect(ids).to.deep.equal(Array.from({ length: 20_000 }, (_, depth) => String(depth)));
  });

  it("writes C1 controls and bidirectional controls escaped, so a terminal showing the document obeys none", () => {
    const value = { body: "a\u009b31mb \u202eevil\u202c \u007f", plain: "é東" };
    const text = jsonDocumentText(value);
    expect(text).not.to.match(/[\u007f-\u009f\u202a-\u202e]/);
    expect(text).to.include("\\u009b").and.include("\\u202e").and.include("\\u007f").and.include("é東");
    expect(JSON.parse(text)).to.deep.equal(value);
  });
});

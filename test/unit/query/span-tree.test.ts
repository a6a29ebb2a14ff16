import { expect } from "chai";
import { buildSpanTree } from "../../../daemon/query/record-mapping.js";
import type { SpanRecord, SpanTreeNode } from "../../../shared/api-records.js";

function span(spanId: string, parentSpanId: string | null, startNs: number): SpanRecord {
  return {
    traceId: "t",
    spanId,
    parentSpanId,
    serviceName: "svc",
    operation: `op-${spanId}`,
    kind: "internal",
    startTime: "",
    endTime: "",
    startTimeUnixNano: String(startNs),
    endTimeUnixNano: String(startNs + 1000),
    durationNs: 1000,
    status: { code: "unset", message: null },
    attributes: {},
    events: [],
    links: [],
    resource: { attributes: {}, schemaUrl: null, droppedAttributesCount: 0 },
    scope: { name: "", version: null, attributes: {}, schemaUrl: null, droppedAttributesCount: 0 },
    traceState: null,
    flags: 0,
    droppedAttributesCount: 0,
    droppedEventsCount: 0,
    droppedLinksCount: 0,
  };
}

/** "id@depth" in tree order, with a "!" for a missing parent. */
function outline(nodes: SpanTreeNode[]): string[] {
  return nodes.map((n) => `${n.spanId}@${n.depth}${n.missingParent ? "!" : ""}`);
}

describe("span tree", () => {
  it("nests children under parents with depths, children ordered by start time", () => {
    const tree = buildSpanTree([
      span("c2", "root", 30),
      span("root", null, 0),
      span("c1", "root", 10),
      span("g", "c1", 20),
    ]);
    expect(outline(tree)).to.deep.equal(["root@0", "c1@1", "g@2", "c2@1"]);
  });

  it("puts spans whose parent never arrived at the top, flagged", () => {
    const tree = buildSpanTree([span("root", null, 0), span("orphan", "gone", 5), span("kid", "orphan", 6)]);
    expect(outline(tree)).to.deep.equal(["root@0", "orphan@0!", "kid@1"]);
  });

  it("still shows every span when parent ids form a cycle, at the top in start order, its parent not missing", () => {
    // The parents are stored (the span's own detail names them): only the tree cannot hang them.
    const tree = buildSpanTree([
      span("root", null, 0),
      span("e", "f", 4),
      span("f", "e", 5),
      span("self", "self", 6),
      span("orphan", "gone", 8),
    ]);
    expect(outline(tree)).to.deep.equal(["root@0", "e@0", "f@1", "self@0", "orphan@0!"]);
    expect(outline(buildSpanTree([span("a", "b", 1), span("b", "a", 0)]))).to.deep.equal(["b@0", "a@1"]);
  });
});

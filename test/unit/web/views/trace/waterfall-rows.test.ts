import { expect } from "chai";
import { type RepeatableSpan, traceTree } from "../../../../../client/web/views/trace/trace-tree.js";
import {
  type ExpandState,
  type FilterableSpan,
  INITIAL_EXPAND,
  revealSpan,
  toggleRow,
  waterfallRows,
} from "../../../../../client/web/views/trace/waterfall-rows.js";

type Span = RepeatableSpan & FilterableSpan;

/** A span starting `start` ms into the trace and lasting `length` ms. */
function span(
  spanId: string,
  parentSpanId: string | null,
  name: string,
  start: number,
  length = 1,
  service = "api",
): Span {
  return {
    spanId,
    parentSpanId,
    name,
    service,
    startTimeUnixNano: String(1_000_000_000_000 + start * 1_000_000),
    offsetMs: start,
    durationMs: length,
    status: "ok",
  };
}

function rowsOf(spans: Span[], expand: ExpandState = INITIAL_EXPAND, filter = {}) {
  return waterfallRows(traceTree(spans), spans, expand, filter).rows.map((row) => [
    row.key,
    row.depth,
    row.expanded,
    row.match,
  ]);
}

describe("waterfall rows", () => {
  const checkout = [
    span("c", "b", "SELECT cart", 8, 12, "checkout"),
    span("a", null, "GET /checkout", 0, 120, "web"),
    span("e", "b", "UPDATE stock", 101, 7, "checkout"),
    span("b", "a", "POST /cart", 5, 105, "checkout"),
    span("d", "b", "charge", 25, 75, "payments"),
  ];

  it("lists spans depth-first, children by start time, each with its depth", () => {
    expect(rowsOf(checkout)).to.deep.equal([
      ["a", 0, true, true],
      ["b", 1, true, true],
      ["c", 2, false, true],
      ["d", 2, false, true],
      ["e", 2, false, true],
    ]);
  });

  it("hides a collapsed subtree and shows it again when opened", () => {
    const tree = traceTree(checkout);
    const open = waterfallRows(tree, checkout, INITIAL_EXPAND).rows;
    const closed = toggleRow(INITIAL_EXPAND, open[1]!);
    expect(rowsOf(checkout, closed)).to.deep.equal([
      ["a", 0, true, true],
      ["b", 1, false, true],
    ]);
    const reopened = toggleRow(closed, waterfallRows(tree, checkout, closed).rows[1]!);
    expect(rowsOf(checkout, reopened)).to.have.length(5);
  });

  it("folds a run of identical leaf siblings into one closed group with their extent, total and average", () => {
    const loop = [span("r", null, "GET /orders", 0, 104)];
    for (let k = 0; k < 50; k++) loop.push(span(`q${k}`, "r", "SELECT orders", 2 + k * 2, 1));
    loop.push(span("z", "r", "render", 102, 1));
    const result = waterfallRows(traceTree(loop), loop, INITIAL_EXPAND);
    expect(result.rows.map((row) => row.key)).to.deep.equal(["r", "group:q0", "z"]);
    const group = result.rows[1]!;
    expect(group.expanded).to.equal(false);
    expect(group.group?.summary).to.deep.equal({ count: 50, startMs: 2, endMs: 101, totalMs: 50, avgMs: 1, errors: 0 });
    const opened = waterfallRows(traceTree(loop), loop, toggleRow(INITIAL_EXPAND, group)).rows;
    expect(opened).to.have.length(53);
    expect(opened.slice(2, 4).map((row) => [row.key, row.depth, row.parentKey])).to.deep.equal([
      ["q0", 2, "group:q0"],
      ["q1", 2, "group:q0"],
    ]);
  });

  it("leaves short runs, and siblings that have children of their own, unfolded", () => {
    const spans = [
      span("r", null, "root", 0, 10),
      span("a", "r", "query", 1),
      span("b", "r", "query", 2),
      span("c", "r", "call", 3),
      span("d", "r", "call", 4),
      span("e", "r", "call", 5),
      span("f", "e", "inner", 5),
    ];
    expect(rowsOf(spans).map(([key]) => key)).to.deep.equal(["r", "a", "b", "c", "d", "e", "f"]);
  });

  it("keeps a filter's matches with their ancestors as context and hides the rest", () => {
    const result = waterfallRows(traceTree(checkout), checkout, INITIAL_EXPAND, { service: "payments" });
    expect(result.matches).to.equal(1);
    expect(result.rows.map((row) => [row.key, row.match])).to.deep.equal([
      ["a", false],
      ["b", false],
      ["d", true],
    ]);
    expect(rowsOf(checkout, INITIAL_EXPAND, { text: "STOCK" }).map(([key]) => key)).to.deep.equal(["a", "b", "e"]);
    expect(rowsOf(checkout, INITIAL_EXPAND, { text: "charge" }).map(([key]) => key)).to.deep.equal(["a", "b", "d"]);
    expect(rowsOf(checkout, INITIAL_EXPAND, { service: "payments", text: "cart" })).to.deep.equal([]);
  });

  it("opens the collapsed ancestors and the group that hide a span, so a deep link shows it", () => {
    const spans = [span("r", null, "root", 0, 100), span("p", "r", "handler", 1, 90)];
    for (let k = 0; k < 5; k++) spans.push(span(`q${k}`, "p", "SELECT", 2 + k, 1));
    const tree = traceTree(spans);
    const collapsed: ExpandState = { collapsed: new Set(["r", "p"]), openGroups: new Set() };
    const revealed = revealSpan(collapsed, tree, spans, tree.indexOf.get("q3")!);
    expect([...revealed.collapsed]).to.deep.equal([]);
    expect([...revealed.openGroups]).to.deep.equal(["group:q0"]);
    expect(rowsOf(spans, revealed).map(([key]) => key)).to.include("q3");
    expect(revealSpan(revealed, tree, spans, tree.indexOf.get("q3")!)).to.equal(revealed);
  });

  it("walks a 20,000-deep chain without overflowing the stack", () => {
    const chain = Array.from({ length: 20_000 }, (_, k) => span(`s${k}`, k === 0 ? null : `s${k - 1}`, "step", k));
    const rows = waterfallRows(traceTree(chain), chain, INITIAL_EXPAND).rows;
    expect(rows).to.have.length(20_000);
    expect(rows.at(-1)?.depth).to.equal(19_999);
  });
});

/**
 * A trace's spans as a tree the waterfall walks: the shared depth-first order (spanForest, the
 * order of `obs trace` and the MCP outline), each span's parent, and each sibling list with its
 * runs of repeated spans folded into groups (a loop of 50 identical queries is one item). Built
 * once per set of loaded spans; the rows (waterfall-rows.ts) are derived from it per render.
 * Pure.
 */
import { spanForest } from "../../../../shared/trace/span-order.js";

/** The least run of identical leaf siblings folded into one row: two in a row (a retry) read fine as two. */
export const MIN_REPEAT = 3;

/** What a repeated run has in common: service and name. */
export interface RepeatableSpan {
  spanId: string;
  parentSpanId: string | null;
  startTimeUnixNano: string;
  service: string;
  name: string;
}

/** One entry of a sibling list: a span, or a run of repeated leaf spans. */
export type SiblingItem = { span: number } | { group: SpanGroup };

export interface SpanGroup {
  /** `group:` and the first member's span id: stable while later pages arrive. */
  key: string;
  /** Input indexes, in start order. */
  members: number[];
}

export interface TraceTree {
  /** Input indexes in depth-first order. */
  order: number[];
  /** Each span's depth (0 at the top). */
  depth: Int32Array;
  /** Each span's parent index, -1 at the top. */
  parent: Int32Array;
  /** Each span's children (input indexes, by start time). */
  children: number[][];
  /** The top-level items (roots, then orphans). */
  topItems: SiblingItem[];
  /** Each span's children as items. */
  childItems: SiblingItem[][];
  /** The group a span is folded into, by input index. */
  groupOf: Map<number, SpanGroup>;
  /** Input index by span id (the first span holding an id). */
  indexOf: Map<string, number>;
}

/** Folds runs of at least MIN_REPEAT consecutive childless siblings with the same service and name. */
export function siblingItems(
  list: readonly number[],
  spans: readonly RepeatableSpan[],
  children: readonly number[][],
): SiblingItem[] {
  const items: SiblingItem[] = [];
  let i = 0;
  while (i < list.length) {
    const first = list[i] as number;
    const head = spans[first] as RepeatableSpan;
    let end = i + 1;
    if ((children[first] as number[]).length === 0) {
      while (end < list.length) {
        const next = list[end] as number;
        const span = spans[next] as RepeatableSpan;
        if ((children[next] as number[]).length > 0 || span.service !== head.service || span.name !== head.name) break;
        end += 1;
      }
    }
    if (end - i >= MIN_REPEAT) {
      items.push({ group: { key: `group:${head.spanId}`, members: list.slice(i, end) } });
      i = end;
    } else {
      items.push({ span: first });
      i += 1;
    }
  }
  return items;
}

export function traceTree(spans: readonly RepeatableSpan[]): TraceTree {
  const forest = spanForest(spans);
  const count = spans.length;
  const depth = new Int32Array(count);
  const parent = new Int32Array(count).fill(-1);
  const order: number[] = [];
  const tops: number[] = [];
  for (const entry of forest.order) {
    order.push(entry.index);
    depth[entry.index] = entry.depth;
    if (entry.depth === 0) tops.push(entry.index);
  }
  forest.children.forEach((kids, index) => {
    for (const kid of kids) parent[kid] = index;
  });
  // A span in a parent cycle is listed as a top item; it must not also count as its parent's child.
  for (const top of tops) parent[top] = -1;
  const childItems = forest.children.map((kids, index) =>
    siblingItems(
      kids.filter((kid) => parent[kid] === index),
      spans,
      forest.children,
    ),
  );
  const topItems = siblingItems(tops, spans, forest.children);
  const groupOf = new Map<number, SpanGroup>();
  for (const items of [topItems, ...childItems])
    for (const item of items)
      if ("group" in item) for (const member of item.group.members) groupOf.set(member, item.group);
  const indexOf = new Map<string, number>();
  spans.forEach((span, index) => {
    if (!indexOf.has(span.spanId)) indexOf.set(span.spanId, index);
  });
  return { order, depth, parent, children: forest.children, topItems, childItems, groupOf, indexOf };
}

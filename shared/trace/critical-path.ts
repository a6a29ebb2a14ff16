/**
 * The critical path of a trace: the spans that bound its duration, as Jaeger UI computes it.
 * From the root, repeatedly descend into the child that finishes last (before the current cut
 * point, once walking back); a span's time not covered by that child is its own (self) time on
 * the path. Children are first fitted into their parent's time range: a child ending after its
 * parent is cut at the parent's end, one starting before it at the parent's start, and a child
 * wholly outside its parent (async work started and left: a message consumed later) leaves the
 * path with its subtree, since it does not hold the parent up. With several roots (or orphans)
 * the longest one is walked. Iterative (a 20,000-deep chain must not overflow the stack). Pure.
 */
import { type OrderableSpan, spanForest } from "./span-order.js";

export interface TimedSpan extends OrderableSpan {
  endTimeUnixNano: string;
}

/** A stretch of time the path spends in one span's own work: [startNs, endNs). */
export interface PathSection {
  /** The span's index in the input. */
  index: number;
  startNs: bigint;
  endNs: bigint;
}

export interface CriticalPath {
  /** The walked root's index, or -1 for no spans. */
  root: number;
  /** In time order; one span may hold several sections (before and after a child). */
  sections: PathSection[];
}

export function criticalPath(spans: readonly TimedSpan[]): CriticalPath {
  const { order, children } = spanForest(spans);
  const start = spans.map((span) => BigInt(span.startTimeUnixNano));
  const end = spans.map((span, i) => {
    const ns = BigInt(span.endTimeUnixNano);
    return ns < (start[i] as bigint) ? (start[i] as bigint) : ns;
  });
  const root = longestRoot(order, start, end);
  if (root === -1) return { root, sections: [] };
  const parent = new Int32Array(spans.length).fill(-1);
  const kept = new Uint8Array(spans.length);
  const seen = new Uint8Array(spans.length);
  kept[root] = 1;
  seen[root] = 1;
  // Pre-order from the root: each parent's range is fitted before its children are. Each span
  // is taken once, under the first parent that reaches it: spans that name each other as
  // parents (a broken sender) would otherwise be walked around their cycle for ever.
  const stack = [root];
  for (let node = stack.pop(); node !== undefined; node = stack.pop()) {
    for (const child of children[node] as number[]) {
      if (seen[child]) continue;
      seen[child] = 1;
      parent[child] = node;
      if (!fitIntoParent(child, node, start, end)) continue;
      kept[child] = 1;
      stack.push(child);
    }
  }
  const reversed: PathSection[] = [];
  let node = root;
  let cut: bigint | undefined;
  for (;;) {
    const last = lastFinishingChild(node, children[node] as number[], parent, kept, end, cut);
    const sectionEnd = cut ?? (end[node] as bigint);
    if (last !== -1) {
      const sectionStart = end[last] as bigint;
      if (sectionStart !== sectionEnd) reversed.push({ index: node, startNs: sectionStart, endNs: sectionEnd });
      node = last;
      cut = undefined;
      continue;
    }
    const sectionStart = start[node] as bigint;
    if (sectionStart !== sectionEnd) reversed.push({ index: node, startNs: sectionStart, endNs: sectionEnd });
    if (node === root) break;
    cut = sectionStart;
    node = parent[node] as number;
  }
  return { root, sections: reversed.reverse() };
}

/** The root (or orphan) lasting longest; the first of equals. */
function longestRoot(order: readonly { index: number; depth: number }[], start: bigint[], end: bigint[]): number {
  let best = -1;
  let bestNs = -1n;
  for (const { index, depth } of order) {
    if (depth !== 0) continue;
    const ns = (end[index] as bigint) - (start[index] as bigint);
    if (ns > bestNs) {
      best = index;
      bestNs = ns;
    }
  }
  return best;
}

/** Fits `child` into `parent`'s (already fitted) range, as Jaeger does; false when it lies wholly outside. */
function fitIntoParent(child: number, parent: number, start: bigint[], end: bigint[]): boolean {
  const parentStart = start[parent] as bigint;
  const parentEnd = end[parent] as bigint;
  const childStart = start[child] as bigint;
  const childEnd = end[child] as bigint;
  if (childStart >= parentEnd && childStart >= parentStart) return false;
  if (childStart < parentStart && childEnd <= parentStart) return false;
  if (childStart < parentStart) start[child] = parentStart;
  if (childEnd > parentEnd) end[child] = parentEnd;
  return true;
}

/** The kept child of `node` (taken under it) ending last, before `cut` when walking back; -1 for none. */
function lastFinishingChild(
  node: number,
  children: readonly number[],
  parent: Int32Array,
  kept: Uint8Array,
  end: bigint[],
  cut: bigint | undefined,
) {
  let last = -1;
  for (const child of children) {
    if (!kept[child] || parent[child] !== node) continue;
    const ns = end[child] as bigint;
    if (cut !== undefined && ns >= cut) continue;
    if (last === -1 || ns > (end[last] as bigint)) last = child;
  }
  return last;
}

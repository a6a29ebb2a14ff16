/**
 * A trace's spans in depth-first order, as the outline and the critical path read them: each
 * span followed by its descendants, children by start time; roots first, then the spans whose
 * parent is not in the trace (orphans, shown as roots). Spans no root reaches (a parent cycle)
 * come last, as orphans, so every span appears exactly once. Iterative: a chain of 20,000 spans
 * must not overflow the stack. Pure.
 */

export interface OrderableSpan {
  spanId: string;
  parentSpanId: string | null;
  startTimeUnixNano: string;
}

/** One span's place in the depth-first order. */
export interface OrderedSpan {
  /** The span's index in the input. */
  index: number;
  /** 0 for a root or an orphan. */
  depth: number;
  /** The span names a parent the trace does not hold (or no root reaches it). */
  orphan: boolean;
}

export interface SpanForest {
  order: OrderedSpan[];
  /** Each input index's children (input indexes, by start time). */
  children: number[][];
}

/** The depth-first order of `spans`, and each span's children. */
export function spanForest(spans: readonly OrderableSpan[]): SpanForest {
  const starts = spans.map((span) => BigInt(span.startTimeUnixNano));
  const byStart = spans.map((_, index) => index);
  byStart.sort((a, b) => {
    const left = starts[a] as bigint;
    const right = starts[b] as bigint;
    return left < right ? -1 : left > right ? 1 : a - b;
  });
  // A span id repeated within a trace (a broken SDK) names its first span.
  const byId = new Map<string, number>();
  for (const index of byStart) {
    const id = (spans[index] as OrderableSpan).spanId;
    if (!byId.has(id)) byId.set(id, index);
  }
  const children: number[][] = spans.map(() => []);
  const roots: number[] = [];
  const orphans: number[] = [];
  for (const index of byStart) {
    const parentId = (spans[index] as OrderableSpan).parentSpanId;
    const parent = parentId === null ? undefined : byId.get(parentId);
    if (parentId === null) roots.push(index);
    else if (parent === undefined || parent === index) orphans.push(index);
    else (children[parent] as number[]).push(index);
  }
  const order: OrderedSpan[] = [];
  const visited = new Uint8Array(spans.length);
  const walk = (start: number, orphan: boolean) => {
    if (visited[start]) return;
    const stack: [number, number][] = [[start, 0]];
    for (let top = stack.pop(); top !== undefined; top = stack.pop()) {
      const [index, depth] = top;
      if (visited[index]) continue;
      visited[index] = 1;
      order.push({ index, depth, orphan: depth === 0 && orphan });
      const kids = children[index] as number[];
      for (let k = kids.length - 1; k >= 0; k -= 1) stack.push([kids[k] as number, depth + 1]);
    }
  };
  for (const index of roots) walk(index, false);
  for (const index of orphans) walk(index, true);
  for (const index of byStart) walk(index, true);
  return { order, children };
}

/**
 * The waterfall's visible rows: the trace tree (trace-tree.ts) walked depth-first, skipping
 * collapsed subtrees and closed groups, and, while a filter is on, every span that neither
 * matches nor leads to a match. Non-matching spans are hidden rather than dimmed: in a trace of
 * 100,000 spans, dimmed rows leave a dozen matches scattered over thousands of rows; hidden
 * ones keep each match with the path from its root (ancestors shown as context, marked as
 * non-matching). Iterative (a 20,000-deep chain). Pure.
 */
import type { SiblingItem, TraceTree } from "./trace-tree.js";

export interface FilterableSpan {
  spanId: string;
  service: string;
  name: string;
  offsetMs: number;
  durationMs: number;
  status: string;
}

/** The filters inside a trace: a service, and text matched against name, service and span id. */
export interface SpanFilter {
  service?: string | undefined;
  text?: string | undefined;
}

/** What the person opened and closed: span subtrees start open, groups of repeats start closed. */
export interface ExpandState {
  collapsed: ReadonlySet<string>;
  openGroups: ReadonlySet<string>;
}

export const INITIAL_EXPAND: ExpandState = { collapsed: new Set(), openGroups: new Set() };

export interface GroupSummary {
  count: number;
  startMs: number;
  endMs: number;
  totalMs: number;
  avgMs: number;
  errors: number;
}

export interface WaterfallRow {
  /** The span id, or the group's key. */
  key: string;
  /** The span (a span row) or the group's first member (a group row). */
  index: number;
  depth: number;
  /** Has rows under it (children, or a group's members). */
  expandable: boolean;
  expanded: boolean;
  /** The row this one is under (a span, or the group it belongs to); null at the top. */
  parentKey: string | null;
  /** Matches the filter (always, without one); false for a match's ancestors shown as context. */
  match: boolean;
  /** For a group row: its members (input indexes) and their combined extent. */
  group?: { members: number[]; summary: GroupSummary };
}

/** Whether a span matches the filter; an empty filter matches everything. */
export function spanMatches(span: FilterableSpan, filter: SpanFilter): boolean {
  if (filter.service && span.service !== filter.service) return false;
  const text = filter.text?.trim().toLowerCase();
  if (!text) return true;
  return (
    span.name.toLowerCase().includes(text) ||
    span.service.toLowerCase().includes(text) ||
    span.spanId.toLowerCase().startsWith(text)
  );
}

export function isFiltering(filter: SpanFilter): boolean {
  return Boolean(filter.service || filter.text?.trim());
}

export function groupSummary(members: readonly number[], spans: readonly FilterableSpan[]): GroupSummary {
  let startMs = Number.POSITIVE_INFINITY;
  let endMs = Number.NEGATIVE_INFINITY;
  let totalMs = 0;
  let errors = 0;
  for (const member of members) {
    const span = spans[member] as FilterableSpan;
    startMs = Math.min(startMs, span.offsetMs);
    endMs = Math.max(endMs, span.offsetMs + span.durationMs);
    totalMs += span.durationMs;
    if (span.status === "error") errors += 1;
  }
  return { count: members.length, startMs, endMs, totalMs, avgMs: totalMs / members.length, errors };
}

export interface RowsResult {
  rows: WaterfallRow[];
  /** Spans matching the filter (all spans without one). */
  matches: number;
}

type Pending = { item: SiblingItem; depth: number; parentKey: string | null };

export function waterfallRows(
  tree: TraceTree,
  spans: readonly FilterableSpan[],
  expand: ExpandState,
  filter: SpanFilter = {},
): RowsResult {
  const filtering = isFiltering(filter);
  const match = new Uint8Array(spans.length);
  const keep = new Uint8Array(spans.length);
  let matches = 0;
  spans.forEach((span, index) => {
    if (!filtering || spanMatches(span, filter)) {
      match[index] = 1;
      matches += 1;
    }
  });
  keep.set(match);
  // Children come after their parent in the depth-first order: walking it backwards marks every ancestor of a match.
  for (let k = tree.order.length - 1; k >= 0; k -= 1) {
    const index = tree.order[k] as number;
    const parent = tree.parent[index] as number;
    if (keep[index] && parent >= 0) keep[parent] = 1;
  }
  const rows: WaterfallRow[] = [];
  const stack: Pending[] = [];
  const pushItems = (items: readonly SiblingItem[], depth: number, parentKey: string | null) => {
    for (let k = items.length - 1; k >= 0; k -= 1) stack.push({ item: items[k] as SiblingItem, depth, parentKey });
  };
  pushItems(tree.topItems, 0, null);
  for (let next = stack.pop(); next !== undefined; next = stack.pop()) {
    const { item, depth, parentKey } = next;
    if ("group" in item) {
      const members = item.group.members.filter((member) => keep[member]);
      if (members.length === 0) continue;
      const expanded = expand.openGroups.has(item.group.key);
      rows.push({
        key: item.group.key,
        index: members[0] as number,
        depth,
        expandable: true,
        expanded,
        parentKey,
        match: members.some((member) => match[member]),
        group: { members, summary: groupSummary(members, spans) },
      });
      if (expanded)
        pushItems(
          members.map((member) => ({ span: member })),
          depth + 1,
          item.group.key,
        );
      continue;
    }
    const index = item.span;
    if (!keep[index]) continue;
    const span = spans[index] as FilterableSpan;
    const children = tree.childItems[index] as SiblingItem[];
    const expandable = children.length > 0;
    const expanded = expandable && !expand.collapsed.has(span.spanId);
    rows.push({ key: span.spanId, index, depth, expandable, expanded, parentKey, match: match[index] === 1 });
    if (expanded) pushItems(children, depth + 1, span.spanId);
  }
  return { rows, matches };
}

/** Opens or closes a row: a span's subtree, or a group's members. */
export function toggleRow(expand: ExpandState, row: Pick<WaterfallRow, "key" | "group" | "expanded">): ExpandState {
  if (row.group) {
    const openGroups = new Set(expand.openGroups);
    if (row.expanded) openGroups.delete(row.key);
    else openGroups.add(row.key);
    return { ...expand, openGroups };
  }
  const collapsed = new Set(expand.collapsed);
  if (row.expanded) collapsed.add(row.key);
  else collapsed.delete(row.key);
  return { ...expand, collapsed };
}

/** Opens what hides span `index` (collapsed ancestors, the group it is folded into), so it gets a row. */
export function revealSpan(
  expand: ExpandState,
  tree: TraceTree,
  spans: readonly { spanId: string }[],
  index: number,
): ExpandState {
  let collapsed: Set<string> | undefined;
  for (let at = tree.parent[index] as number; at >= 0; at = tree.parent[at] as number) {
    const id = (spans[at] as { spanId: string }).spanId;
    if (!expand.collapsed.has(id)) continue;
    collapsed ??= new Set(expand.collapsed);
    collapsed.delete(id);
  }
  const group = tree.groupOf.get(index);
  const openGroup = group !== undefined && !expand.openGroups.has(group.key);
  if (!collapsed && !openGroup) return expand;
  return {
    collapsed: collapsed ?? expand.collapsed,
    openGroups: openGroup ? new Set([...expand.openGroups, group.key]) : expand.openGroups,
  };
}

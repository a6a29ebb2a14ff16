/**
 * The rows of a paged list with each item once, at its first place. A trace's place in the
 * trace list is its earliest span's start: when an earlier span of a trace already shown arrives
 * between pages (its root, often), the trace moves further down, and a later page lists it
 * again (docs/api.md, Paging). Pure.
 */
export function firstOfEach<T>(items: readonly T[], idOf: (item: T) => string): T[] {
  const seen = new Set<string>();
  return items.filter((item) => {
    const id = idOf(item);
    if (seen.has(id)) return false;
    seen.add(id);
    return true;
  });
}

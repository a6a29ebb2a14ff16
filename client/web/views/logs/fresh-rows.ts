/**
 * Which rows of a live list are new since the last answer, so the view can mark them for a
 * moment. The first answer marks nothing (everything is new to the eye, so nothing stands out). Pure.
 */
export function freshKeys(seen: ReadonlySet<string> | undefined, keys: readonly string[]): Set<string> {
  if (!seen) return new Set();
  return new Set(keys.filter((key) => !seen.has(key)));
}

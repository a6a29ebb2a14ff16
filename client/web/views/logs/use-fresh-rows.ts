import { useEffect, useRef, useState } from "preact/hooks";
import { freshKeys } from "./fresh-rows.js";

/**
 * The keys of rows that arrived with the latest answer of a live list (none on the first), for
 * a brief highlight; forgets what it saw when `listKey` (the filters) changes.
 */
export function useFreshRows(listKey: string, keys: readonly string[], ready: boolean): Set<string> {
  const seen = useRef<{ listKey: string; keys: Set<string> } | undefined>(undefined);
  const [fresh, setFresh] = useState<Set<string>>(() => new Set());
  const signature = keys.join(",");
  useEffect(() => {
    if (!ready) return;
    const previous = seen.current?.listKey === listKey ? seen.current.keys : undefined;
    const next = freshKeys(previous, keys);
    seen.current = { listKey, keys: new Set([...(previous ?? []), ...keys]) };
    if (next.size > 0 || fresh.size > 0) setFresh(next);
  }, [listKey, signature, ready]);
  return fresh;
}

import { useEffect, useRef, useState } from "preact/hooks";
import { freshKeys } from "./fresh-rows.js";

/**
 * The keys of rows that arrived with the latest answer of a live list (none on the first), for
 * a brief highlight. `page` is the answer the rows come from: when `listKey` (the filters)
 * changes, the previous filters' answer stays on screen until the new one arrives, and neither
 * it nor the new answer's rows are news.
 */
export function useFreshRows(listKey: string, keys: readonly string[], page: object | undefined): Set<string> {
  const seen = useRef<{ listKey: string; keys: Set<string> } | undefined>(undefined);
  const changedAt = useRef<{ listKey: string; page: object | undefined }>({ listKey, page });
  if (changedAt.current.listKey !== listKey) changedAt.current = { listKey, page };
  const ready = page !== undefined && page !== changedAt.current.page;
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

/**
 * A list paged with the API's cursors: the first page (live when asked), then the pages a person
 * asks for with "Load more", appended below it. From the first "Load more", the first page is
 * held as it was and live updates stop, so the rows being read neither move nor vanish; going
 * back to one page (reset) resumes them.
 */
import { useEffect, useState } from "preact/hooks";
import type { Page } from "../../../shared/api-records.js";
import { firstOfEach } from "./paged-items.js";
import { useQuery } from "./use-query.js";

export interface PagedState<T> {
  /** Every row shown: the first page, then the pages loaded after it. */
  items: T[];
  /** The first page's meta (limit, lookback, truncated). */
  firstPage: Page<T> | undefined;
  /** There is a page after the last one shown. */
  hasMore: boolean;
  loading: boolean;
  loadingMore: boolean;
  error: Error | undefined;
  updatedAt: number | undefined;
  /** Loads the next page below the rows shown. */
  more: () => void;
  /** Back to the first page only (and live again, if live). */
  reset: () => void;
}

interface Held<T> {
  key: string;
  first: Page<T>;
  items: T[];
  cursor: string | null;
  error?: Error | undefined;
}

export function usePagedQuery<T>(
  key: string,
  loadPage: (cursor: string | undefined, signal: AbortSignal) => Promise<Page<T>>,
  options: {
    live?: boolean;
    intervalMs?: number;
    /** An item's identity: an item a later page lists again is shown once, at its first place (paged-items.ts). */
    idOf?: (item: T) => string;
  } = {},
): PagedState<T> {
  // The rows held once a person asks for more: the first page as it was at that moment, then the
  // pages after it. A first-page answer that lands later (live, or one already under way) is not
  // shown while rows are held: its page could end before the cursor the next pages continue
  // from, and the rows between would vanish unseen.
  const [held, setHeld] = useState<Held<T> | null>(null);
  const [loadingMore, setLoadingMore] = useState(false);
  const current = held?.key === key ? held : null;
  const first = useQuery(key, (signal) => loadPage(undefined, signal), {
    live: options.live === true && current === null,
    ...(options.intervalMs !== undefined ? { intervalMs: options.intervalMs } : {}),
  });

  useEffect(() => {
    if (held !== null && held.key !== key) setHeld(null);
  }, [key, held]);

  const shownFirst = current ? current.first : first.data;
  const nextCursor = current ? current.cursor : (first.data?.meta.nextCursor ?? null);
  const more = () => {
    if (!nextCursor || loadingMore || !shownFirst) return;
    const base: Held<T> = current ?? { key, first: shownFirst, items: [], cursor: nextCursor };
    setHeld(base);
    setLoadingMore(true);
    loadPage(nextCursor, new AbortController().signal)
      .then((page) =>
        setHeld((previous) =>
          previous?.key === key
            ? { ...previous, items: [...previous.items, ...page.data], cursor: page.meta.nextCursor, error: undefined }
            : previous,
        ),
      )
      .catch((error: Error) => setHeld((previous) => (previous?.key === key ? { ...previous, error } : previous)))
      .finally(() => setLoadingMore(false));
  };

  const items = [...(shownFirst?.data ?? []), ...(current?.items ?? [])];
  return {
    items: options.idOf ? firstOfEach(items, options.idOf) : items,
    firstPage: shownFirst,
    hasMore: nextCursor !== null,
    loading: first.loading,
    loadingMore,
    error: current ? current.error : first.error,
    updatedAt: first.updatedAt,
    more,
    reset: () => setHeld(null),
  };
}

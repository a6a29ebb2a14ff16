/**
 * A list paged with the API's cursors: the first page (live when asked), then the pages a person
 * asks for with "Load more", appended below it. While more pages are shown, live updates stop,
 * so the rows being read do not move; going back to one page resumes them.
 */
import { useEffect, useState } from "preact/hooks";
import type { Page } from "../../../shared/api-records.js";
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

export function usePagedQuery<T>(
  key: string,
  loadPage: (cursor: string | undefined, signal: AbortSignal) => Promise<Page<T>>,
  options: { live?: boolean } = {},
): PagedState<T> {
  const [extra, setExtra] = useState<{ key: string; items: T[]; cursor: string | null; error?: Error }>({
    key,
    items: [],
    cursor: null,
  });
  const [loadingMore, setLoadingMore] = useState(false);
  const current = extra.key === key ? extra : { key, items: [] as T[], cursor: null };
  const first = useQuery(key, (signal) => loadPage(undefined, signal), {
    live: options.live === true && current.items.length === 0,
  });

  useEffect(() => {
    if (extra.key !== key) setExtra({ key, items: [], cursor: null });
  }, [key, extra.key]);

  const nextCursor = current.items.length > 0 ? current.cursor : (first.data?.meta.nextCursor ?? null);
  const more = () => {
    if (!nextCursor || loadingMore) return;
    setLoadingMore(true);
    loadPage(nextCursor, new AbortController().signal)
      .then((page) =>
        setExtra((previous) => ({
          key,
          items: previous.key === key ? [...previous.items, ...page.data] : page.data,
          cursor: page.meta.nextCursor,
        })),
      )
      .catch((error: Error) => setExtra((previous) => ({ ...previous, error })))
      .finally(() => setLoadingMore(false));
  };

  return {
    items: [...(first.data?.data ?? []), ...current.items],
    firstPage: first.data,
    hasMore: nextCursor !== null,
    loading: first.loading,
    loadingMore,
    error: first.error ?? ("error" in current ? current.error : undefined),
    updatedAt: first.updatedAt,
    more,
    reset: () => setExtra({ key, items: [], cursor: null }),
  };
}

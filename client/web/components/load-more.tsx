import type { PagedState } from "../live/use-paged-query.js";

/** The foot of a paged list: how many rows are shown, and the button for the next page. */
export function LoadMore<T>({ paged, noun }: { paged: PagedState<T>; noun: string }) {
  return (
    <div class="load-more">
      <span class="muted">
        {paged.items.length} {noun}
        {paged.hasMore ? " shown; more in the window" : ""}
      </span>
      {paged.hasMore && (
        <button type="button" onClick={paged.more} disabled={paged.loadingMore}>
          {paged.loadingMore ? "Loading…" : "Load more"}
        </button>
      )}
    </div>
  );
}

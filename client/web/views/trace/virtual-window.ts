/**
 * Which rows of a long list to render: those in the scroll viewport and a margin on each side,
 * all of one fixed height, so the DOM holds a few dozen rows whether the trace has 100 spans or
 * 100,000. Pure.
 */

export interface VirtualWindow {
  /** First row rendered. */
  first: number;
  /** One past the last row rendered. */
  end: number;
  /** Offset of the first rendered row from the list's top, px. */
  top: number;
  /** The whole list's height, px. */
  height: number;
}

export function virtualWindow(
  scrollTop: number,
  viewportHeight: number,
  rowHeight: number,
  rowCount: number,
  margin = 10,
): VirtualWindow {
  const height = rowCount * rowHeight;
  const firstVisible = Math.floor(Math.max(0, scrollTop) / rowHeight);
  const first = Math.max(0, Math.min(rowCount, firstVisible - margin));
  const lastVisible = Math.ceil((Math.max(0, scrollTop) + Math.max(0, viewportHeight)) / rowHeight);
  const end = Math.max(first, Math.min(rowCount, lastVisible + margin));
  return { first, end, top: first * rowHeight, height };
}

/**
 * The scroll position that shows row `index` whole, or null when it is already in view.
 * `inset` is the height of what covers the viewport's top (the sticky time axis).
 */
export function scrollToReveal(
  index: number,
  scrollTop: number,
  viewportHeight: number,
  rowHeight: number,
  inset = 0,
): number | null {
  const rowTop = index * rowHeight;
  const rowBottom = rowTop + rowHeight;
  if (rowTop < scrollTop) return rowTop;
  if (rowBottom > scrollTop + viewportHeight - inset) return Math.max(0, rowBottom - viewportHeight + inset);
  return null;
}

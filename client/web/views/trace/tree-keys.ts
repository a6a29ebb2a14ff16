/**
 * The waterfall's keys, as a tree view's (WAI-ARIA tree pattern): up and down move between
 * visible rows, left closes an open row or goes to its parent, right opens a closed row or goes
 * to its first child, Enter and Space open or close, Home, End and the page keys jump. Pure.
 */

export interface KeyRow {
  key: string;
  expandable: boolean;
  expanded: boolean;
  parentKey: string | null;
}

export type TreeAction = { select: string } | { toggle: string } | null;

export function treeKeyAction(rows: readonly KeyRow[], selected: number, key: string, pageRows = 20): TreeAction {
  if (rows.length === 0) return null;
  const at = (index: number): TreeAction => {
    const row = rows[Math.max(0, Math.min(rows.length - 1, index))] as KeyRow;
    return { select: row.key };
  };
  const row = rows[selected];
  if (!row) {
    if (key === "ArrowDown" || key === "Home" || key === "PageDown") return at(0);
    if (key === "ArrowUp" || key === "End" || key === "PageUp") return at(rows.length - 1);
    return null;
  }
  switch (key) {
    case "ArrowDown":
      return at(selected + 1);
    case "ArrowUp":
      return at(selected - 1);
    case "Home":
      return at(0);
    case "End":
      return at(rows.length - 1);
    case "PageDown":
      return at(selected + pageRows);
    case "PageUp":
      return at(selected - pageRows);
    case "ArrowLeft":
      if (row.expandable && row.expanded) return { toggle: row.key };
      return row.parentKey === null ? null : { select: row.parentKey };
    case "ArrowRight":
      if (row.expandable && !row.expanded) return { toggle: row.key };
      if (row.expanded && rows[selected + 1]?.parentKey === row.key) return at(selected + 1);
      return null;
    case "Enter":
    case " ":
      return row.expandable ? { toggle: row.key } : null;
    default:
      return null;
  }
}

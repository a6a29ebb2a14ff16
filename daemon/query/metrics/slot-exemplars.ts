/**
 * The exemplars of a slot query, collected by its aggregate as it reads the rollup rows
 * (slot-groups.ts) instead of by a second scan of the same rows: exemplars are rare, and a
 * scan that only tests `exemplars IS NOT NULL` cost as much as a fifth of the query.
 */

/** The SQL argument that carries a row's exemplars: "last_ns ids-JSON", null without any. */
export const EXEMPLAR_ARG = "CASE WHEN r.exemplars IS NOT NULL THEN r.last_ns || ' ' || r.exemplars END";

/** How many rows with exemplars a query reads, newest first (as the points' exemplar scan). */
export const MAX_EXEMPLAR_ROWS = 1000;

interface ExemplarRow {
  lastNs: bigint;
  gid: number | null;
  ids: string;
}

/** Rows with exemplars of the query being run; queries run one at a time on a connection. */
export class SlotExemplars {
  private rows: ExemplarRow[] = [];

  /** A row's EXEMPLAR_ARG text, with the series' group (null: outside the scope). */
  add(gid: number | null, text: string): void {
    const space = text.indexOf(" ");
    this.rows.push({ lastNs: BigInt(text.slice(0, space)), gid, ids: text.slice(space + 1) });
  }

  /**
   * (gid, ids JSON) of the newest MAX_EXEMPLAR_ROWS rows, newest first, ties in reading
   * order (slot, series), as ORDER BY last_ns DESC LIMIT would pick them; then cleared.
   */
  take(): [number | null, string][] {
    const rows = this.rows;
    this.rows = [];
    // Array.prototype.sort is stable: equal times keep the order the rows were read in.
    rows.sort((a, b) => (a.lastNs === b.lastNs ? 0 : a.lastNs > b.lastNs ? -1 : 1));
    return rows.slice(0, MAX_EXEMPLAR_ROWS).map((row) => [row.gid, row.ids]);
  }
}

/**
 * The rare parts of a slot query's rollup rows, resets and exemplars, collected by its
 * aggregate as it reads the rows (slot-groups.ts): exemplars instead of by a second scan of
 * the same rows (one that only tests `exemplars IS NOT NULL` cost a fifth of the query), and
 * both in one argument that is null on almost every row, since each argument costs every call.
 */

/** The SQL argument that carries a row's resets and exemplars: "resets last_ns ids-JSON", null without either. */
export const RARE_ARG =
  "CASE WHEN r.resets <> 0 OR r.exemplars IS NOT NULL THEN r.resets || ' ' || r.last_ns || ' ' || coalesce(r.exemplars, '') END";

/** A RARE_ARG text: the row's resets, and its "last_ns ids-JSON" when it has exemplars. */
export function rareParts(text: string): { resets: number; exemplar: string | null } {
  const space = text.indexOf(" ");
  const exemplar = text.slice(space + 1);
  return { resets: Number(text.slice(0, space)), exemplar: exemplar.endsWith(" ") ? null : exemplar };
}

/** How many rows with exemplars a query reads, newest first (as the points' exemplar scan). */
export const MAX_EXEMPLAR_ROWS = 1000;

/** One row with exemplars: the series' group (null: out of scope), its ids JSON, and its time. */
export type ExemplarRowOf = [gid: number | null, ids: string, timeNs: bigint];

interface ExemplarRow {
  lastNs: bigint;
  gid: number;
  ids: string;
}

/** Rows with exemplars of the query being run; queries run one at a time on a connection. */
export class SlotExemplars {
  private rows: ExemplarRow[] = [];

  /**
   * A row's exemplar text ("last_ns ids-JSON"), with the series' group; a row outside the scope
   * (null) is left out here, before take()'s cap, so other series' newer exemplars cannot
   * crowd the scope's out.
   */
  add(gid: number | null, text: string): void {
    if (gid === null) return;
    const space = text.indexOf(" ");
    this.rows.push({ lastNs: BigInt(text.slice(0, space)), gid, ids: text.slice(space + 1) });
  }

  /**
   * (gid, ids JSON, last_ns) of the newest MAX_EXEMPLAR_ROWS rows, newest first, ties in reading
   * order (slot, series), as ORDER BY last_ns DESC LIMIT would pick them; then cleared.
   */
  take(): ExemplarRowOf[] {
    const rows = this.rows;
    this.rows = [];
    // Array.prototype.sort is stable: equal times keep the order the rows were read in.
    rows.sort((a, b) => (a.lastNs === b.lastNs ? 0 : a.lastNs > b.lastNs ? -1 : 1));
    return rows.slice(0, MAX_EXEMPLAR_ROWS).map((row) => [row.gid, row.ids, row.lastNs]);
  }
}

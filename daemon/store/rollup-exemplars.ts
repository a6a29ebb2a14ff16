/**
 * A rollup row's exemplars (`metric_rollups.exemplars`; a pack's exemplar texts are its rows'):
 * up to EXEMPLARS_KEPT distinct trace ids, newest first by the time of the point that carried
 * each, stored as JSON `[["traceId", "pointNs"], ..]` (the time a decimal string: nanoseconds
 * are past a double's exact integers). With each one's time, a row merged from others (a 900 s
 * slot's from its minutes) and a query over several rows order them exemplar by exemplar, as the
 * points do, not row by row.
 *
 * Rows written before the times were kept hold trace ids alone (`["traceId", ..]`): each is read
 * as at the row's newest point (its `last_ns`), the time those rows were read at before.
 */

/** Exemplar trace ids a rollup row keeps. */
export const EXEMPLARS_KEPT = 3;

/** One exemplar of a rollup row: its trace id and the time of the point that carried it. */
export interface RowExemplar {
  traceId: string;
  timeNs: bigint;
}

/** The newest EXEMPLARS_KEPT of `candidates` (a trace id once, at its first place); ties keep their order. */
export function newestExemplars(candidates: readonly RowExemplar[]): RowExemplar[] {
  // Array.prototype.sort is stable: exemplars of one time keep the order they were given in.
  const ordered = [...candidates].sort((a, b) => (a.timeNs === b.timeNs ? 0 : a.timeNs > b.timeNs ? -1 : 1));
  const kept: RowExemplar[] = [];
  for (const exemplar of ordered) {
    if (kept.some((other) => other.traceId === exemplar.traceId)) continue;
    kept.push(exemplar);
    if (kept.length === EXEMPLARS_KEPT) break;
  }
  return kept;
}

/** The stored text of a row's exemplars; null for none. */
export function rowExemplarsText(exemplars: readonly RowExemplar[]): string | null {
  if (exemplars.length === 0) return null;
  return JSON.stringify(exemplars.map((exemplar) => [exemplar.traceId, exemplar.timeNs.toString()]));
}

/** A row's exemplars from their stored text, in its order; trace ids alone (older rows) at `lastNs`. */
export function rowExemplarsOf(text: string | null, lastNs: bigint): RowExemplar[] {
  if (text === null) return [];
  const out: RowExemplar[] = [];
  for (const item of JSON.parse(text) as unknown[]) {
    if (typeof item === "string") {
      if (item !== "") out.push({ traceId: item, timeNs: lastNs });
    } else if (Array.isArray(item) && typeof item[0] === "string" && item[0] !== "" && typeof item[1] === "string") {
      out.push({ traceId: item[0], timeNs: BigInt(item[1]) });
    }
  }
  return out;
}

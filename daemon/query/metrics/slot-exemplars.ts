/**
 * The rare parts of a slot query's rollup rows, resets and exemplars, collected by its
 * aggregate as it reads the rows (slot-groups.ts): exemplars instead of by a second scan of
 * the same rows (one that only tests `exemplars IS NOT NULL` cost a fifth of the query), and
 * both in one argument that is null on almost every row, since each argument costs every call.
 */
import { rowExemplarsOf } from "../../store/rollup-exemplars.js";
import type { GroupExemplars } from "./group-exemplars.js";

/** The SQL argument that carries a row's resets and exemplars: "resets last_ns exemplars-JSON", null without either. */
export const RARE_ARG =
  "CASE WHEN r.resets <> 0 OR r.exemplars IS NOT NULL THEN r.resets || ' ' || r.last_ns || ' ' || coalesce(r.exemplars, '') END";

/** A RARE_ARG text: the row's resets, and its "last_ns exemplars-JSON" when it has exemplars. */
export function rareParts(text: string): { resets: number; exemplar: string | null } {
  const space = text.indexOf(" ");
  const exemplar = text.slice(space + 1);
  return { resets: Number(text.slice(0, space)), exemplar: exemplar.endsWith(" ") ? null : exemplar };
}

/**
 * A row's exemplars (their stored text, rollup-exemplars.ts) to its group's, each at the time of
 * the point that carried it (older rows: at `lastNs`, the row's newest point's); a row outside
 * the scope (null) is left out, and so is one too old to change its group's (its text unread:
 * no exemplar of a row is newer than the row's newest point).
 */
export function addRowExemplars(
  exemplars: GroupExemplars,
  gid: number | null,
  seriesId: number,
  lastNs: bigint,
  text: string,
): void {
  if (gid === null || !exemplars.wants(gid, lastNs, seriesId)) return;
  rowExemplarsOf(text, lastNs).forEach(({ traceId, timeNs }, order) => {
    exemplars.offer(gid, traceId, timeNs, seriesId, order);
  });
}

/** addRowExemplars of a rareParts exemplar text ("last_ns exemplars-JSON"). */
export function addRareExemplars(exemplars: GroupExemplars, gid: number | null, seriesId: number, text: string): void {
  if (gid === null) return;
  const space = text.indexOf(" ");
  addRowExemplars(exemplars, gid, seriesId, BigInt(text.slice(0, space)), text.slice(space + 1));
}

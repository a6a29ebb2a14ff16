/**
 * The rare parts of a slot query's rollup rows, resets and exemplars, collected by its
 * aggregate as it reads the rows (slot-groups.ts): exemplars instead of by a second scan of
 * the same rows (one that only tests `exemplars IS NOT NULL` cost a fifth of the query), and
 * both in one argument that is null on almost every row, since each argument costs every call.
 */
import type { GroupExemplars } from "./group-exemplars.js";

/** The SQL argument that carries a row's resets and exemplars: "resets last_ns ids-JSON", null without either. */
export const RARE_ARG =
  "CASE WHEN r.resets <> 0 OR r.exemplars IS NOT NULL THEN r.resets || ' ' || r.last_ns || ' ' || coalesce(r.exemplars, '') END";

/** A RARE_ARG text: the row's resets, and its "last_ns ids-JSON" when it has exemplars. */
export function rareParts(text: string): { resets: number; exemplar: string | null } {
  const space = text.indexOf(" ");
  const exemplar = text.slice(space + 1);
  return { resets: Number(text.slice(0, space)), exemplar: exemplar.endsWith(" ") ? null : exemplar };
}

/**
 * A row's exemplars (its trace ids JSON, newest first) to its group's, each at the row's newest
 * point's time `lastNs`; a row outside the scope (null) is left out, and so is one too old to
 * change its group's (without parsing its ids).
 */
export function addRowExemplars(
  exemplars: GroupExemplars,
  gid: number | null,
  seriesId: number,
  lastNs: bigint,
  ids: string,
): void {
  if (gid === null || !exemplars.wants(gid, lastNs, seriesId)) return;
  (JSON.parse(ids) as unknown[]).forEach((traceId, order) => {
    if (typeof traceId === "string" && traceId !== "") exemplars.offer(gid, traceId, lastNs, seriesId, order);
  });
}

/** addRowExemplars of a rareParts exemplar text ("last_ns ids-JSON"). */
export function addRareExemplars(exemplars: GroupExemplars, gid: number | null, seriesId: number, text: string): void {
  if (gid === null) return;
  const space = text.indexOf(" ");
  addRowExemplars(exemplars, gid, seriesId, BigInt(text.slice(0, space)), text.slice(space + 1));
}

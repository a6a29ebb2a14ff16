/**
 * The general path's exemplars (metric-bucket-sql.ts exemplarSql), read newest first into each
 * group's (group-exemplars.ts). obs_exemplars_wanted(series_id, time_ns) tells SQLite which rows
 * may still change a group's, asked of each row as the scan reaches it: the rows are read one at
 * a time, each given to its group before the next is tested, so once a group has its newest,
 * its older rows are passed over without their text leaving SQLite. The answer does not depend
 * on that order, only how many rows are read.
 */
import type Database from "better-sqlite3";
import { exemplarTraceIds } from "../../store/metric-point-detail.js";
import type { GroupExemplars } from "./group-exemplars.js";
import type { SeriesGroups } from "./metric-sql-functions.js";
import { addRowExemplars } from "./slot-exemplars.js";

/** Defines obs_exemplars_wanted(series_id, time_ns): 1 while the series is in scope and its group wants that time. */
export function registerExemplarWanted(
  db: Database.Database,
  seriesGroups: SeriesGroups,
  exemplars: GroupExemplars,
): void {
  db.function(
    "obs_exemplars_wanted",
    { deterministic: false, safeIntegers: true },
    (series: unknown, time: unknown) => {
      const seriesId = Number(series);
      const gid = seriesGroups.of(seriesId);
      return gid !== null && exemplars.wants(gid, BigInt(time as bigint), seriesId) ? 1 : 0;
    },
  );
}

/**
 * An exemplarSql scan's rows (series id, time ns, text) to their groups': a rollup row's
 * exemplars, each at its point's time (slot-exemplars.ts addRowExemplars), or a point's, at the
 * point's time, newest first by their own (exemplarTraceIds).
 */
export function readExemplarScan(
  rows: Iterable<unknown[]>,
  points: boolean,
  seriesGroups: SeriesGroups,
  exemplars: GroupExemplars,
): void {
  for (const [series, time, text] of rows) {
    const seriesId = Number(series);
    const gid = seriesGroups.of(seriesId);
    const timeNs = BigInt(time as bigint);
    if (gid === null || !exemplars.wants(gid, timeNs, seriesId)) continue;
    if (!points) {
      addRowExemplars(exemplars, gid, seriesId, timeNs, String(text));
      continue;
    }
    exemplarTraceIds(String(text)).forEach((traceId, order) => {
      exemplars.offer(gid, traceId, timeNs, seriesId, order);
    });
  }
}

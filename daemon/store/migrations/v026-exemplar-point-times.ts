import type { Migration } from "./shared.js";

// Metric rollup rows (and the packed slots made from them) keep each exemplar with the time of
// the point that carried it, `[["traceId", "pointNs"], ..]`, where rows written before held trace
// ids alone. This build reads both forms, and a row is written in the new one whenever it is
// written again, so the step changes no row. It exists for the version it sets: a build from
// before it would read a new row's pairs as trace ids, and refuses a store of a newer version
// rather than answering from what it cannot read.
//
// Frozen.

export const v026ExemplarPointTimes: Migration = {
  version: 26,
  description: "exemplars in metric rollups keep their points' times",
  up() {},
};

/**
 * Each group's newest exemplars (a group's `exemplars` in an answer), kept per group as a query
 * reads them: up to MAX_GROUP_EXEMPLARS distinct trace ids, newest first by the time of the point
 * that carried them, series at the same time by id (the order they were first seen), then in the
 * order their row or point holds them. Bounded per group, not over all of them, so other groups'
 * newer exemplars (a busy service beside a quiet one) cannot take a group's place.
 */
import { MAX_GROUP_EXEMPLARS } from "../telemetry-reader.js";

/** An exemplar as a group keeps it. */
export interface GroupExemplar {
  traceId: string;
  timeNs: bigint;
}

interface Candidate extends GroupExemplar {
  seriesId: number;
  order: number;
}

/** Whether `a` comes before `b`: newer, else the lower series id, else the lower order. */
function before(a: Candidate, b: Candidate): boolean {
  if (a.timeNs !== b.timeNs) return a.timeNs > b.timeNs;
  if (a.seriesId !== b.seriesId) return a.seriesId < b.seriesId;
  return a.order < b.order;
}

const NONE: readonly GroupExemplar[] = Object.freeze([]);

export class GroupExemplars {
  /** Per group number, its kept exemplars in answer order. */
  private groups: (Candidate[] | undefined)[] = [];

  /**
   * Whether an exemplar of series `seriesId` at `timeNs` (or older) may still be one of group
   * `gid`'s, so a row whose newest point is that old can be passed over without reading its
   * exemplars.
   */
  wants(gid: number, timeNs: bigint, seriesId: number): boolean {
    const kept = this.groups[gid];
    if (kept === undefined || kept.length < MAX_GROUP_EXEMPLARS) return true;
    const last = kept[kept.length - 1] as Candidate;
    return timeNs > last.timeNs || (timeNs === last.timeNs && seriesId <= last.seriesId);
  }

  /** One exemplar of group `gid`; a trace id the group has keeps its place before this one's. */
  offer(gid: number, traceId: string, timeNs: bigint, seriesId: number, order: number): void {
    let kept = this.groups[gid];
    if (kept === undefined) {
      kept = [];
      this.groups[gid] = kept;
    }
    const candidate: Candidate = { traceId, timeNs, seriesId, order };
    const same = kept.findIndex((other) => other.traceId === traceId);
    if (same >= 0) {
      if (!before(candidate, kept[same] as Candidate)) return;
      kept.splice(same, 1);
    } else if (kept.length >= MAX_GROUP_EXEMPLARS && !before(candidate, kept[kept.length - 1] as Candidate)) {
      return;
    }
    let at = kept.length;
    while (at > 0 && before(candidate, kept[at - 1] as Candidate)) at--;
    kept.splice(at, 0, candidate);
    if (kept.length > MAX_GROUP_EXEMPLARS) kept.pop();
  }

  /** Group `gid`'s exemplars, newest first. */
  of(gid: number): readonly GroupExemplar[] {
    return this.groups[gid]?.map(({ traceId, timeNs }) => ({ traceId, timeNs })) ?? NONE;
  }

  /** Forgets every group's, for the next query. */
  clear(): void {
    this.groups = [];
  }
}

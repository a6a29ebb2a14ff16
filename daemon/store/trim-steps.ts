/**
 * The steps of one retention trim, in order (writer-worker.ts runs each until it deletes
 * nothing). Pure: the writer and the passes come in as functions.
 */
import type { RecordCounts } from "../signals/registry.js";
import { noRecords } from "../signals/registry.js";

export interface TrimParts {
  /** Has the writer write what a pass cannot see and do its waiting refolds; true when it had any. */
  settleWriter(): boolean;
  byAge(): RecordCounts;
  bySize(): RecordCounts;
  /** Told when the writer could not: the passes go on without it. */
  onWriterError(error: unknown): void;
  /** Told once per trim for each pass (by age, by size) that failed: the other passes still run. */
  onPassError(error: unknown): void;
}

/**
 * The writer's refolds first (while any waits, a pass keeps every metric series), then by age,
 * by age again when the writer held points past the first pass's cutoff (written after it, they
 * go in the second: an idle collector would keep them until its next metric request), then by
 * size. A writer that fails (a full disk, after the write it rolled back) does not stop the
 * passes: they are what frees the space. Nor does a pass that fails stop the others: a failing
 * age pass must not leave the store over its size cap. A failed pass deletes nothing, so the
 * writer's loop moves on to the next step.
 */
export function trimSteps(parts: TrimParts): (() => RecordCounts)[] {
  const reported = new Set<() => RecordCounts>();
  const guarded = (pass: () => RecordCounts) => (): RecordCounts => {
    try {
      return pass();
    } catch (error) {
      if (!reported.has(pass)) {
        reported.add(pass);
        parts.onPassError(error);
      }
      return noRecords();
    }
  };
  const byAge = guarded(parts.byAge);
  const bySize = guarded(parts.bySize);
  const settled = (): boolean => {
    try {
      return parts.settleWriter();
    } catch (error) {
      parts.onWriterError(error);
      return false;
    }
  };
  return [
    () => {
      settled();
      return noRecords();
    },
    byAge,
    () => (settled() ? byAge() : noRecords()),
    bySize,
  ];
}

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
}

/**
 * The writer's refolds first (while any waits, a pass keeps every metric series), then by age,
 * by age again when the writer held points past the first pass's cutoff (written after it, they
 * go in the second: an idle collector would keep them until its next metric request), then by
 * size. A writer that fails (a full disk, after the write it rolled back) does not stop the
 * passes: they are what frees the space.
 */
export function trimSteps(parts: TrimParts): (() => RecordCounts)[] {
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
    parts.byAge,
    () => (settled() ? parts.byAge() : noRecords()),
    parts.bySize,
  ];
}

import type { ResourceLimits } from "node:worker_threads";

/** How much the ingest pipeline may hold, derived from the largest body it accepts. */
export interface IngestLimits {
  /** Request bytes being decoded, queued or written at once (BodyBudget). */
  bodyBudgetBytes: number;
  /** Heap limits of the decoder and writer threads. */
  worker: ResourceLimits;
}

const MiB = 1024 * 1024;

/**
 * - Two requests at the body cap may be inside the pipeline at once (32 MiB at the default
 *   16 MiB cap); decoded, a body takes ten to thirty times its size on the worker heaps.
 * - Both workers allocate many short-lived objects per batch; a 16 MB young generation keeps
 *   their resident memory down (measured: 16 MB kept throughput; 8 MB cost about 20%).
 * - The old generation limit is there for how V8 grows a heap, not as a cap expected to be
 *   reached: with no limit, on a machine with much memory, V8 lets the old generation grow to
 *   four times what is live before collecting; with one, peak RSS under load is 20 to 40 MB
 *   lower at the same throughput. 64 times the body cap (1,024 MB at 16 MiB) is twice what
 *   the worst body measured needs (docs/PERFORMANCE.md), so a larger cap raises it.
 */
export function ingestLimits(maxBodyBytes: number): IngestLimits {
  return {
    bodyBudgetBytes: 2 * maxBodyBytes,
    worker: {
      maxYoungGenerationSizeMb: 16,
      maxOldGenerationSizeMb: Math.max(1024, Math.ceil((64 * maxBodyBytes) / MiB)),
    },
  };
}

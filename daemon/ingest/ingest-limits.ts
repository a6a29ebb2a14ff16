import type { ResourceLimits } from "node:worker_threads";

/** How much the ingest pipeline may hold, derived from the largest body it accepts. */
export interface IngestLimits {
  /** The most values (records, attributes at any depth, array items, events, links) one request may decode to. */
  maxDecodedValues: number;
  /** Cost units (`requestCost`) of the requests being decoded, queued or written at once (BodyBudget). */
  budgetUnits: number;
  /** Heap limits of the decoder and writer threads. */
  worker: ResourceLimits;
}

const MiB = 1024 * 1024;

/** Body bytes that count as one unit of cost (the cost of the body's own text). */
const BYTES_PER_UNIT = 64;

/**
 * Bytes of the body cap per value one request may decode to. Set by two things at once: an
 * OpenTelemetry Collector's default batch (8,192 spans of the dozen and more attributes HTTP
 * server spans carry) must fit at the default cap, and the costliest requests within the
 * allowance, four at once, must keep obsd under its memory target (docs/PERFORMANCE.md,
 * "Hostile bodies"). With fewer bytes a value, four such requests went past it.
 */
const BYTES_PER_ALLOWED_VALUE = 96;

/**
 * What a request holds in the pipeline once decoded, in units of one decoded value: its
 * values, and its body's bytes (a few values of large strings cost by their size).
 */
export function requestCost(bodyBytes: number, values: number): number {
  return values + Math.ceil(bodyBytes / BYTES_PER_UNIT);
}

/**
 * What a request is charged while it waits for and goes through decoding, before its values
 * are counted: as much as a body of its size can decode to (an empty protobuf array item is
 * two bytes), up to the most any request may.
 */
export function reservedCost(bodyBytes: number, limits: IngestLimits): number {
  const values = Math.min(limits.maxDecodedValues, Math.ceil(bodyBytes / 2));
  return requestCost(bodyBytes, values);
}

/**
 * - A request may decode to one value per 96 bytes of the body cap (174,763 at 16 MiB; a
 *   record counts as three): an SDK's batch of 512 spans of ten attributes is about 6,700, a
 *   Collector's default batch of 8,192 spans of fifteen about 147,000, while 16 MiB of one-byte
 *   attributes is a million values, far past the memory target. Past the allowance the decoder
 *   stops and the answer is 413, naming --max-body-size: the allowance grows with the cap.
 * - The budget is less than what two requests at the allowance cost, whatever their bodies'
 *   size (each costs its values and at least one unit more): two worst cases are never inside
 *   at once, one being written while the next is decoded (which took four requests of one span
 *   of distinct attributes within the allowance to the memory target). A request costlier than
 *   the budget (a full body) goes through alone, cheaper ones together. A body is charged the
 *   most it could cost until decoded, then what it does cost, so ordinary exports, decoded,
 *   hold little of the budget.
 * - Both workers allocate many short-lived objects per batch; a 16 MB young generation keeps
 *   their resident memory down without costing throughput, which a smaller one did.
 * - The old generation limit is there for how V8 grows a heap, not as a cap expected to be
 *   reached: with no limit, on a machine with much memory, V8 lets the old generation grow to
 *   four times what is live before collecting; with one, peak RSS under load is lower at the
 *   same throughput. 64 times the body cap (1,024 MB at 16 MiB) is about twice what the worst
 *   body measured needs, so a larger cap raises it (the figures: docs/perf-history/2026-11.md,
 *   "Memory bounds", and docs/perf-history/design-decisions.md).
 */
export function ingestLimits(maxBodyBytes: number): IngestLimits {
  const maxDecodedValues = Math.ceil(maxBodyBytes / BYTES_PER_ALLOWED_VALUE);
  return {
    maxDecodedValues,
    budgetUnits: 2 * maxDecodedValues,
    worker: {
      maxYoungGenerationSizeMb: 16,
      maxOldGenerationSizeMb: Math.max(1024, Math.ceil((64 * maxBodyBytes) / MiB)),
    },
  };
}

/**
 * The critical path (shared/trace/critical-path.ts, Jaeger UI's walk) as stretches of each
 * span's bar: per span, the [start, end] offsets in milliseconds from the trace's start where
 * the span's own work holds the trace up. Pure.
 */
import { criticalPath, type TimedSpan } from "../../../../shared/trace/critical-path.js";

export type Segment = [startMs: number, endMs: number];

export function criticalSegments(spans: readonly TimedSpan[], origin: string): Map<number, Segment[]> {
  const originNs = BigInt(origin);
  const segments = new Map<number, Segment[]>();
  for (const section of criticalPath(spans).sections) {
    const segment: Segment = [Number(section.startNs - originNs) / 1e6, Number(section.endNs - originNs) / 1e6];
    const list = segments.get(section.index);
    if (list) list.push(segment);
    else segments.set(section.index, [segment]);
  }
  return segments;
}

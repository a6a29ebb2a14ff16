/** Small, deterministic number helpers the rules share. */

/** Rounded to `digits` decimals, so that figures print the same everywhere. */
export function rounded(value: number, digits = 1): number {
  const factor = 10 ** digits;
  return Math.round(value * factor) / factor;
}

export function ms(value: number): string {
  return `${rounded(value, value < 10 ? 2 : 0)} ms`;
}

export function count(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`;
}

/** How a trace's root is named in summaries; a missing root says so. */
export function rootLabel(service: string | null, operation: string | null): string {
  return service === null ? "an unknown root (root span not received)" : `${service}: ${operation ?? "(unnamed)"}`;
}

/** Codepoint order, independent of locale, for deterministic sorting. */
export function compareText(a: string | null, b: string | null): number {
  const x = a ?? "";
  const y = b ?? "";
  return x < y ? -1 : x > y ? 1 : 0;
}

/** Evidence order: newest first, ties by trace id, then span id. */
export function newestFirst(
  a: { startNs: bigint; traceId: string; spanId: string | null },
  b: { startNs: bigint; traceId: string; spanId: string | null },
): number {
  return (
    (a.startNs > b.startNs ? -1 : a.startNs < b.startNs ? 1 : 0) ||
    compareText(a.traceId, b.traceId) ||
    compareText(a.spanId, b.spanId)
  );
}

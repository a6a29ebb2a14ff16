/**
 * What the span detail shows for a `getSpan` answer. The API finds a span by its id alone, and
 * span ids are unique only within a trace, so an answer from another trace (a hand-edited or
 * stale `span=`, or an id two traces share) is named as such, with that trace's id, instead
 * of showing the other trace's span as if it were this one's. Pure.
 */

export type SpanAnswer<S> =
  | { kind: "loading" }
  | { kind: "span"; span: S }
  | { kind: "otherTrace"; traceId: string; spanId: string; heldHere: boolean };

/** `heldHere`: this trace's waterfall has a span with the id too (the API then answered the other's). */
export function spanAnswer<S extends { spanId: string; traceId: string }>(
  answer: S | undefined,
  spanId: string,
  traceId: string,
  heldHere = false,
): SpanAnswer<S> {
  // An answer for an earlier selection is still in hand while the next one loads.
  if (!answer || answer.spanId !== spanId) return { kind: "loading" };
  if (answer.traceId.toLowerCase() !== traceId.toLowerCase())
    return { kind: "otherTrace", traceId: answer.traceId, spanId, heldHere };
  return { kind: "span", span: answer };
}

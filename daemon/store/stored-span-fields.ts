/**
 * A span's rarely set fields and its unique key as the store keeps them (schema version 22,
 * migrations/v022-lean-spans.ts), written by the span writer and read back by the readers.
 *
 * - Details. The trace state, the events, the links and the three dropped counts are absent
 *   from nearly every span, yet each column cost every row a byte: they are one column,
 *   `details`, NULL when the span has none of them, else a JSON object of those it has
 *   (`traceState`, `events`, `links`, `droppedAttributesCount`, `droppedEventsCount`,
 *   `droppedLinksCount`), the events and links as the decoders' JSON text.
 *   The text is JSON.stringify's, so a trace state keeps a lone surrogate (escaped), as the
 *   events' and links' strings always did; its TEXT column of schemas before 22 kept U+FFFD in
 *   its place, and rows copied from then keep that.
 * - Key. A span is one (trace, span id) pair, yet its trace and whole span id made a second
 *   copy in a unique index. The index by trace, `spans_by_trace`, keeps the span id's last two
 *   bytes instead (`spanKeySql`), and is not unique: the writer looks a sent span up before
 *   storing it (span-writer.ts). A lookup of one span of a trace names the two bytes too
 *   (`spanOfTraceSql`), so that it reads only the rows of the trace that share them. The last
 *   bytes, not the first: they are the random ones, and they tell apart ids that count up
 *   (a generator of sequential or zero-padded ids), which the first bytes of such ids do not.
 */

/** What a span's `details` hold, as the decoders give them. */
export interface SpanDetails {
  traceState: string | null;
  events: string | null;
  links: string | null;
  droppedAttributesCount: number;
  droppedEventsCount: number;
  droppedLinksCount: number;
}

/** The stored `details` of a span: NULL when it has none of them. */
export function storedDetails(span: SpanDetails): string | null {
  let text = "";
  const add = (part: string) => {
    text += text === "" ? part : `,${part}`;
  };
  if (span.traceState !== null) add(`"traceState":${JSON.stringify(span.traceState)}`);
  // The decoders give none as null; an empty text (none either, to the readers) is left out too.
  if (span.events) add(`"events":${span.events}`);
  if (span.links) add(`"links":${span.links}`);
  if (span.droppedAttributesCount !== 0) add(`"droppedAttributesCount":${span.droppedAttributesCount}`);
  if (span.droppedEventsCount !== 0) add(`"droppedEventsCount":${span.droppedEventsCount}`);
  if (span.droppedLinksCount !== 0) add(`"droppedLinksCount":${span.droppedLinksCount}`);
  return text === "" ? null : `{${text}}`;
}

/** A row's `details` read back, the events and links still parsed JSON (null when absent). */
export interface ReadDetails {
  traceState: string | null;
  events: unknown[] | null;
  links: unknown[] | null;
  droppedAttributesCount: number;
  droppedEventsCount: number;
  droppedLinksCount: number;
}

/** A row's `details` column read back. */
export function readDetails(stored: string | null): ReadDetails {
  const details = (stored === null ? {} : JSON.parse(stored)) as Partial<ReadDetails>;
  return {
    traceState: details.traceState ?? null,
    events: details.events ?? null,
    links: details.links ?? null,
    droppedAttributesCount: details.droppedAttributesCount ?? 0,
    droppedEventsCount: details.droppedEventsCount ?? 0,
    droppedLinksCount: details.droppedLinksCount ?? 0,
  };
}

/** SQL for the events of the spans row `s` as a JSON array, or NULL (for json_each). */
export function spanEventsSql(s: string): string {
  return `json_extract(${s}.details, '$.events')`;
}

/** SQL for the links of the spans row `s` as a JSON array, or NULL. */
export function spanLinksSql(s: string): string {
  return `json_extract(${s}.details, '$.links')`;
}

/**
 * SQL for the part of a span id (stored bytes, SQL `spanId`) that `spans_by_trace` keeps after
 * the trace key: its last two bytes. The index's own expression; changing it needs a migration.
 */
export function spanKeySql(spanId: string): string {
  return `substr(${spanId}, 7, 2)`;
}

/**
 * SQL matching the span of the spans row `s` in the trace `traceKey` whose span id (stored bytes)
 * is `spanId`: through `spans_by_trace`, the trace and the id's last two bytes, then the whole id.
 */
export function spanOfTraceSql(s: string, traceKey: string, spanId: string): string {
  return `${s}.trace_key = ${traceKey} AND ${spanKeySql(`${s}.span_id`)} = ${spanKeySql(spanId)} AND ${s}.span_id = ${spanId}`;
}

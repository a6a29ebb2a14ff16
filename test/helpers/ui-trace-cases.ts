/**
 * Extra traces for the Trace view's e2e tests: two traces that share span ids (span ids are
 * unique only within a trace) and one whose telemetry is markup, which the UI must show as text.
 */
import { hexId } from "./otlp-builders.js";
import type { UiLog, UiSpan } from "./ui-data.js";

const MS = 1_000_000n;

export interface SharedIdTraces {
  spans: UiSpan[];
  /** Trace A: root → middle → leaf. */
  a: string;
  /** Trace B: the same three span ids, and `extra` (a second child of the root) only B has. */
  b: string;
  ids: { root: string; middle: string; leaf: string; extra: string };
}

export function sharedIdTraces(nowNs: bigint): SharedIdTraces {
  const a = hexId(0x99a00, 16);
  const b = hexId(0x99b00, 16);
  const ids = { root: hexId(0x99001, 8), middle: hexId(0x99002, 8), leaf: hexId(0x99003, 8), extra: hexId(0x99004, 8) };
  const at = nowNs - 30_000n * MS;
  const span = (
    traceId: string,
    spanId: string,
    parentSpanId: string | null,
    name: string,
    fromMs: number,
    toMs: number,
  ) => ({
    service: "web",
    traceId,
    spanId,
    parentSpanId,
    name,
    startNs: at + BigInt(fromMs) * MS,
    endNs: at + BigInt(toMs) * MS,
    error: false,
    attributes: {},
  });
  const spans: UiSpan[] = [];
  for (const [traceId, letter] of [
    [a, "A"],
    [b, "B"],
  ] as const) {
    spans.push(span(traceId, ids.root, null, `${letter} root`, 0, 100));
    spans.push(span(traceId, ids.middle, ids.root, `${letter} middle`, 10, 50));
    spans.push(span(traceId, ids.leaf, ids.middle, `${letter} leaf`, 20, 40));
  }
  spans.push(span(b, ids.extra, ids.root, "B extra", 60, 90));
  return { spans, a, b, ids };
}

export const MARKUP_IMG = '<img src=x onerror="window.__xss=1">';
export const MARKUP_BOLD = "<b>bold</b>";

export interface MarkupTrace {
  span: UiSpan;
  log: UiLog;
}

/** A span named with an <img onerror>, attributes and a log body of markup; the log's severity is text only (number 0, "ERROR"). */
export function markupTrace(nowNs: bigint): MarkupTrace {
  const traceId = hexId(0x99c00, 16);
  const spanId = hexId(0x99c01, 8);
  const startNs = nowNs - 20_000n * MS;
  return {
    span: {
      service: "web",
      traceId,
      spanId,
      parentSpanId: null,
      name: MARKUP_IMG,
      startNs,
      endNs: startNs + 80n * MS,
      error: false,
      attributes: { "note.html": MARKUP_BOLD, "note.img": MARKUP_IMG },
    },
    log: {
      service: "web",
      timeNs: startNs + 40n * MS,
      severityNumber: 0,
      severityText: "ERROR",
      body: `${MARKUP_BOLD} ${MARKUP_IMG}`,
      traceId,
      spanId,
    },
  };
}

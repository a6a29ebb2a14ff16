/**
 * Loads one trace for the waterfall: `getTrace` answers the summary and the first
 * FIRST_PAGE_SPANS spans (tree nodes, no attributes), shown at once; `meta.nextCursor` then pages the rest on
 * `getTraceSpans`, 10,000 records a request, one after another, each page added as it
 * arrives. Past TRACE_SPAN_CAP spans it stops and says so rather than hold the tab hostage.
 * Each new set of spans re-lays the whole tree (the order of a late span's children can change),
 * so while pages stream in the loaded spans are handed over at most once every
 * RELAYOUT_INTERVAL_MS, and the progress line counts the rest.
 */
import { useEffect, useState } from "preact/hooks";
import type { TraceSummary } from "../../../../shared/api-records.js";
import { query } from "../../api/query.js";
import { firstTracePage } from "./trace-prefetch.js";
import { isoToUnixNano, spansFromRecords, spansFromTree, type WaterfallSpan } from "./trace-spans.js";

/** The most spans the view loads; a trace beyond it is shown in part, with a notice. */
export const TRACE_SPAN_CAP = 200_000;
/** The least time between two re-layouts of the waterfall while pages arrive. */
const RELAYOUT_INTERVAL_MS = 1000;

export interface TraceLoad {
  summary: TraceSummary | undefined;
  /** The trace's start, Unix nanoseconds (decimal text): offsets are from it. */
  origin: string;
  spans: WaterfallSpan[];
  /** Spans received so far (`spans` may lag behind while pages arrive). */
  received: number;
  /** The first answer is under way. */
  loading: boolean;
  /** The first answer failed (an unknown or malformed id: the collector's message). */
  error: Error | undefined;
  /** A later page failed: what is loaded stays shown. */
  pageError: Error | undefined;
  /** Every page is in (or the cap is reached). */
  complete: boolean;
  /** Stopped at TRACE_SPAN_CAP with more spans in the store. */
  capped: boolean;
}

const EMPTY: TraceLoad = {
  summary: undefined,
  origin: "0",
  spans: [],
  received: 0,
  loading: true,
  error: undefined,
  pageError: undefined,
  complete: false,
  capped: false,
};

export function useTrace(traceId: string): TraceLoad {
  const [state, setState] = useState<TraceLoad>(EMPTY);
  useEffect(() => {
    const controller = new AbortController();
    const { signal } = controller;
    setState(EMPTY);
    const run = async () => {
      const first = await firstTracePage(traceId, signal);
      const summary = first.data;
      const origin = isoToUnixNano(summary.startTime);
      let spans = spansFromTree(first.data.tree, origin);
      let cursor = first.meta.nextCursor;
      const capped = () => cursor !== null && spans.length >= TRACE_SPAN_CAP;
      const { tree: _tree, ...rest } = summary;
      const received = spans.length;
      setState({ ...EMPTY, summary: rest, origin, spans, received, loading: false, complete: cursor === null });
      let handedOver = Date.now();
      while (cursor !== null && !capped()) {
        const page = await query("getTraceSpans", { traceId, cursor }, signal);
        spans = spans.concat(spansFromRecords(page.data, origin));
        cursor = page.data.length > 0 ? page.meta.nextCursor : null;
        const done = cursor === null || capped();
        const all = spans;
        if (done || Date.now() - handedOver >= RELAYOUT_INTERVAL_MS) {
          handedOver = Date.now();
          setState((previous) => ({ ...previous, spans: all, received: all.length, complete: done, capped: capped() }));
        } else setState((previous) => ({ ...previous, received: all.length }));
      }
    };
    run().catch((error: Error) => {
      if (error.name === "AbortError") return;
      setState((previous) =>
        previous.summary ? { ...previous, pageError: error, complete: true } : { ...previous, loading: false, error },
      );
    });
    return () => controller.abort();
  }, [traceId]);
  return state;
}

/**
 * The first page of a trace asked for as soon as the script runs, before the first render: the
 * view would otherwise ask only from its effect, after the page's first paint, which on a fresh
 * load is most of the time before a waterfall can be drawn. The view takes the answer (once) if
 * its trace was prefetched, and asks itself otherwise.
 */
import type { QueryAnswerOf } from "../../../../shared/query-types.js";
import { query } from "../../api/query.js";

type FirstPage = QueryAnswerOf<"getTrace">;

/**
 * Spans in the first answer: enough to fill the screen many times over, few enough that the
 * collector answers quickly (its tree of 10,000 spans takes several times as long); the rest
 * follow in getTraceSpans' pages while the first rows are already on screen.
 */
export const FIRST_PAGE_SPANS = 2000;

const prefetched = new Map<string, Promise<FirstPage>>();

/** Starts asking for the trace's first page; its answer waits for firstTracePage. */
export function prefetchTrace(traceId: string): void {
  const answer = query("getTrace", { traceId, limit: FIRST_PAGE_SPANS });
  // Held for the view; a failure is the view's to show, so it is not reported here.
  answer.catch(() => undefined);
  prefetched.set(traceId, answer);
}

/** The trace's first page: the prefetched answer if there is one (used once), else a new request. */
export function firstTracePage(traceId: string, signal: AbortSignal): Promise<FirstPage> {
  const answer = prefetched.get(traceId);
  if (!answer) return query("getTrace", { traceId, limit: FIRST_PAGE_SPANS }, signal);
  prefetched.delete(traceId);
  return answer;
}

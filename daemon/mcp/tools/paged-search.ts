/**
 * A cursored API list as a tool's answer, for the search and list tools: the API asked with
 * the tool's filters and a page size, the page cut to the byte budget (pageWithinBudget, so the
 * continuation carries a real cursor), the window the API answered for, and the summary.
 */

import { type ApiPage, pageWithinBudget } from "../budget.js";
import type { AnswerTail, ToolAnswer } from "../mcp-tool.js";
import { pageSummary, withoutUndefined } from "./query-args.js";

/** What a list route answers: its items, its cursor and the window it searched. */
type WindowPage<T> = ApiPage<T> & { meta: { lookback: string | null } };

export async function searchPage<T, R extends AnswerTail>(options: {
  /** The tool, named in the continuation. */
  tool: string;
  /** What the items are, plural, for the summary: "spans". */
  noun: string;
  /** The call's arguments: repeated in the continuation with the next cursor. */
  args: { limit?: number; cursor?: string; lookback?: string };
  /** The route's default page size, when the call gives no limit. */
  defaultLimit: number;
  maxBytes: number;
  /** One page of the list: the tool's own filters plus this page's limit and cursor. */
  fetch: (page: { limit: number; cursor?: string }) => Promise<WindowPage<T>>;
  /** The answer from the items kept, the window searched and the tail (truncated, continuation). */
  build: (items: readonly T[], lookback: string | null, tail: Pick<AnswerTail, "truncated" | "continuation">) => R;
}): Promise<ToolAnswer<R>> {
  let lookback: string | null = options.args.lookback ?? null;
  const { answer, kept, total } = await pageWithinBudget({
    fetch: async (limit, cursor) => {
      const page = await options.fetch(withoutUndefined({ limit, cursor }));
      lookback = page.meta.lookback;
      return page;
    },
    limit: options.args.limit ?? options.defaultLimit,
    ...(options.args.cursor === undefined ? {} : { cursor: options.args.cursor }),
    maxBytes: options.maxBytes,
    build: (items, tail) => options.build(items, lookback, tail),
    continueWith: (cursor) => ({
      tool: options.tool,
      arguments: withoutUndefined({ ...options.args, cursor }),
      why: `the next ${options.noun}`,
    }),
  });
  const summary = pageSummary({
    noun: options.noun,
    kept,
    total,
    truncated: answer.truncated,
    lookback,
    maxBytes: options.maxBytes,
  });
  return { structured: answer, summary };
}

/**
 * pageWithinBudget (budget.ts), held to the budget. pageWithinBudget measures a cut page with
 * a 64-character stand-in for the cursor when the first page had none (every match fitted the
 * limit, not the bytes), while the collector's cursors run longer (about 150 characters), so
 * the answer it returns can overflow by that difference. Asked again with the overflow taken
 * off the budget, the page is cut a row earlier and fits.
 */
import { jsonBytes, pageWithinBudget } from "../budget.js";
import type { AnswerTail } from "../mcp-tool.js";

type PageOptions<T, R extends AnswerTail> = Parameters<typeof pageWithinBudget<T, R>>[0];

/** How often a page is asked again with a smaller budget before giving up (one retry suffices). */
const RETRIES = 3;

export async function pageWithinMaxBytes<T, R extends AnswerTail>(
  options: PageOptions<T, R>,
): Promise<{ answer: R; kept: number; total: number }> {
  let result = await pageWithinBudget(options);
  let budget = options.maxBytes;
  for (let retry = 0; retry < RETRIES && jsonBytes(result.answer) > options.maxBytes; retry++) {
    budget -= jsonBytes(result.answer) - options.maxBytes;
    result = await pageWithinBudget({ ...options, maxBytes: budget });
  }
  return result;
}

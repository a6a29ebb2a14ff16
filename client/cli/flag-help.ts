/** How the query commands' flags read in --help, where several commands share the words. */
import type { FlagHelp } from "./route-flags.js";

/** Every windowed command's --since; the route's default is shown and sent. */
export const SINCE_HELP: FlagHelp = { describe: "Lookback, at most 24h", withDefault: true };
export const CURSOR_HELP = "Continue from a previous JSON page's next_cursor";
export const PAGE_LIMIT_HELP = "Page size (spans and logs: default 100, capped at 500)";

/** The trace filters of `obs traces` and `obs trace-stats`. */
export const TRACE_FILTER_HELP = {
  service: "Only traces with a span of this service.name",
  status: "Only traces with (error) or without (ok) error spans",
  operation: "Root operation",
  durationMin: "Only traces lasting at least this many ms",
} as const;

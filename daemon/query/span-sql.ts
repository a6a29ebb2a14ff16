/**
 * A span's duration in SQL over the spans table aliased `s`: since schema 12 a span keeps its
 * times alone, and its duration is the end less the start, 0 when the end is not after the
 * start (the rule the writer always stored it by).
 */
export const SPAN_DURATION = "(CASE WHEN s.end_ns > s.start_ns THEN s.end_ns - s.start_ns ELSE 0 END)";

/**
 * A span's duration in SQL over the spans table aliased `s`: since schema 19 a span keeps its
 * start and its end less its start (`duration_ns`), and its duration is that, 0 when the end is
 * not after the start (the rule the writer always stored it by).
 */
export const SPAN_DURATION = "max(s.duration_ns, 0)";

/** A span's end in SQL over the spans table aliased `s`, as it was sent. */
export const SPAN_END = "(s.start_ns + s.duration_ns)";

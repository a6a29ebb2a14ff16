/**
 * A span's duration in SQL over the spans table aliased `s`: since schema 19 a span keeps its
 * start and its end less its start (`duration_ns`), and its duration is that, 0 when the end is
 * not after the start (the rule the writer always stored it by).
 */
export const SPAN_DURATION = "max(s.duration_ns, 0)";

/** A span's end in SQL over the spans table aliased `s`, as it was sent. */
export const SPAN_END = "(s.start_ns + s.duration_ns)";

/**
 * A trace's duration in SQL over the traces table aliased `t`: its latest span end less its
 * earliest start, 0 when that end is not after it (spans that all end before they start, or
 * send no end), as a trace summary shows it and a span's duration is counted.
 */
export const TRACE_DURATION = "max(t.end_ns - t.start_ns, 0)";

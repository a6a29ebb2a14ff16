/**
 * The web UI's link in the trace tools' answers: a person reading along with an agent opens the
 * trace's waterfall (with the span selected) on the collector the tools asked, at the address
 * in the tool context. About 60 bytes a trace.
 */

/** The `ui_url` property of an answer's output schema. */
export const UI_URL_PROPERTY = {
  type: "string",
  description: "The trace's waterfall in obs's web UI, for a person to open (not a tool argument)",
} as const;

/** The `ui_url` of a span detail: its trace's waterfall with the span selected. */
export const SPAN_UI_URL_PROPERTY = {
  type: "string",
  description: "The span in its trace's waterfall in obs's web UI, for a person to open (not a tool argument)",
} as const;

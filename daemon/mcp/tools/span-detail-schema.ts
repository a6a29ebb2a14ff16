/** The output schema of a span detail (span-detail-record.ts), described for a model. */
import { SPAN_UI_URL_PROPERTY } from "./ui-links.js";

const NULLABLE_STRING = { type: ["string", "null"] } as const;

export const EXCEPTION_SCHEMA = {
  type: "object",
  description: "An exception event read out: exception.type, exception.message, exception.stacktrace (cut)",
  properties: { type: NULLABLE_STRING, message: NULLABLE_STRING, stack: NULLABLE_STRING },
  required: ["type", "message", "stack"],
} as const;

export const SPAN_DETAIL_SCHEMA = {
  type: "object",
  properties: {
    span_id: { type: "string" },
    trace_id: { type: "string" },
    ui_url: SPAN_UI_URL_PROPERTY,
    parent_span_id: NULLABLE_STRING,
    name: { type: "string" },
    service: { type: "string" },
    kind: { type: "string" },
    start: { type: "string", description: "ISO 8601" },
    end: { type: "string", description: "ISO 8601" },
    duration_ms: { type: "number" },
    status: {
      type: "object",
      properties: { code: { type: "string", enum: ["unset", "ok", "error"] }, message: NULLABLE_STRING },
      required: ["code", "message"],
    },
    attributes: { type: "object", description: "The span's attributes" },
    events: {
      type: "array",
      items: {
        type: "object",
        properties: {
          name: { type: "string" },
          time: { type: "string" },
          attributes: { type: "object", description: "Without the exception.* keys, read out in exception" },
          exception: EXCEPTION_SCHEMA,
        },
        required: ["name", "time", "attributes"],
      },
    },
    links: {
      type: "array",
      items: {
        type: "object",
        properties: { trace_id: NULLABLE_STRING, span_id: NULLABLE_STRING, attributes: { type: "object" } },
        required: ["trace_id", "span_id", "attributes"],
      },
    },
    resource: { type: "object", description: "The resource's attributes (service.name, host, SDK...)" },
    scope: {
      type: "object",
      properties: { name: { type: "string" }, version: NULLABLE_STRING },
      required: ["name", "version"],
    },
    dropped: {
      type: "object",
      additionalProperties: { type: "integer" },
      description:
        "Counts of what is missing: dropped_attributes/events/links by the sender, omitted_attributes/events/links by this answer to fit max_bytes",
    },
  },
  required: [
    "span_id",
    "trace_id",
    "ui_url",
    "parent_span_id",
    "name",
    "service",
    "kind",
    "start",
    "end",
    "duration_ms",
    "status",
    "attributes",
    "events",
    "links",
    "resource",
    "scope",
  ],
} as const;

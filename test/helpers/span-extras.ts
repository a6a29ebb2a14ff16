/**
 * Events and links on spans of an OTLP/JSON request built by traceRequest (otlp-builders.ts),
 * which writes neither: exception events and links for the MCP trace tools' tests.
 */

export interface EventSpec {
  name: string;
  timeNs: bigint;
  attributes?: Record<string, string>;
}

export interface LinkSpec {
  traceId: string;
  spanId: string;
  attributes?: Record<string, string>;
}

interface OtlpSpan {
  spanId: string;
  events?: unknown[];
  links?: unknown[];
}

interface OtlpTraceRequest {
  resourceSpans: { scopeSpans: { spans: OtlpSpan[] }[] }[];
}

const attributeList = (attributes: Record<string, string> = {}) =>
  Object.entries(attributes).map(([key, value]) => ({ key, value: { stringValue: value } }));

/** `request` with `events` and `links` added to the span `spanId` (the request is changed and returned). */
export function withSpanExtras<T>(request: T, spanId: string, extras: { events?: EventSpec[]; links?: LinkSpec[] }): T {
  for (const resource of (request as OtlpTraceRequest).resourceSpans)
    for (const scope of resource.scopeSpans)
      for (const span of scope.spans) {
        if (span.spanId !== spanId) continue;
        span.events = (extras.events ?? []).map((event) => ({
          name: event.name,
          timeUnixNano: event.timeNs.toString(),
          attributes: attributeList(event.attributes),
        }));
        span.links = (extras.links ?? []).map((link) => ({
          traceId: link.traceId,
          spanId: link.spanId,
          attributes: attributeList(link.attributes),
        }));
      }
  return request;
}

/** An exception event as OTel SDKs record it. */
export function exceptionEvent(timeNs: bigint, type: string, message: string, stacktrace: string): EventSpec {
  return {
    name: "exception",
    timeNs,
    attributes: { "exception.type": type, "exception.message": message, "exception.stacktrace": stacktrace },
  };
}

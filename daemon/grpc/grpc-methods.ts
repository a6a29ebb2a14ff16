/**
 * The gRPC methods obsd serves, one `Export` per registered signal, named from the signal's
 * OTLP request message: `ExportTraceServiceRequest` is
 * `opentelemetry.proto.collector.trace.v1.TraceService/Export`. A new signal module brings its
 * method with it.
 */
import { type AnySignal, SIGNALS, type SignalName } from "../signals/registry.js";

const REQUEST_MESSAGE = /^Export(\w+)ServiceRequest$/;

/** The HTTP/2 `:path` of a signal's Export method. */
export function exportMethodPath(signal: AnySignal): string {
  const match = REQUEST_MESSAGE.exec(signal.openapi.requestMessage);
  if (!match) throw new Error(`cannot name the gRPC service of ${signal.openapi.requestMessage}`);
  const service = match[1] as string;
  return `/opentelemetry.proto.collector.${service.toLowerCase()}.v1.${service}Service/Export`;
}

/** Every served method's `:path`, with the signal it ingests. */
export const EXPORT_METHODS: ReadonlyMap<string, SignalName> = new Map(
  SIGNALS.map((signal) => [exportMethodPath(signal), signal.name]),
);

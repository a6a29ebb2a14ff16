import protobuf from "protobufjs";
import { packagePath } from "../../shared/package-root.js";

const PROTO_ROOT = packagePath("schemas", "otlp");

/**
 * The official OTLP message definitions, loaded once from `schemas/otlp`, for tests and
 * benchmarks that build OTLP/protobuf bodies (obsd itself reads them with protobuf-wire.ts).
 */
function loadRoot(): protobuf.Root {
  const root = new protobuf.Root();
  root.resolvePath = (_origin, target) => `${PROTO_ROOT}/${target}`;
  root.loadSync(
    [
      "opentelemetry/proto/collector/trace/v1/trace_service.proto",
      "opentelemetry/proto/collector/logs/v1/logs_service.proto",
    ],
    { keepCase: false },
  );
  root.resolveAll();
  return root;
}

const root = loadRoot();

export const otlpTypes = {
  traceRequest: root.lookupType("opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest"),
  traceResponse: root.lookupType("opentelemetry.proto.collector.trace.v1.ExportTraceServiceResponse"),
  logsRequest: root.lookupType("opentelemetry.proto.collector.logs.v1.ExportLogsServiceRequest"),
  logsResponse: root.lookupType("opentelemetry.proto.collector.logs.v1.ExportLogsServiceResponse"),
};

import { expect } from "chai";
import { EXPORT_METHODS, exportMethodPath } from "../../../daemon/grpc/grpc-methods.js";
import { SIGNALS } from "../../../daemon/signals/registry.js";

describe("gRPC export methods", () => {
  it("are named from each registered signal's OTLP request message, as the OTLP protos name them", () => {
    expect(EXPORT_METHODS.get("/opentelemetry.proto.collector.trace.v1.TraceService/Export")).to.equal("traces");
    expect(EXPORT_METHODS.get("/opentelemetry.proto.collector.logs.v1.LogsService/Export")).to.equal("logs");
    expect(EXPORT_METHODS.size).to.equal(SIGNALS.length);
    const metrics = {
      ...SIGNALS[0],
      openapi: { operationId: "exportMetrics", requestMessage: "ExportMetricsServiceRequest" },
    };
    expect(exportMethodPath(metrics as (typeof SIGNALS)[number])).to.equal(
      "/opentelemetry.proto.collector.metrics.v1.MetricsService/Export",
    );
  });
});

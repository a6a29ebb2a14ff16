import { context, type DiagLogger, DiagLogLevel, diag, SpanKind, SpanStatusCode, trace } from "@opentelemetry/api";
import { SeverityNumber } from "@opentelemetry/api-logs";
import type { ExportResult } from "@opentelemetry/core";
import { OTLPLogExporter as JsonLogExporter } from "@opentelemetry/exporter-logs-otlp-http";
import { OTLPLogExporter as ProtoLogExporter } from "@opentelemetry/exporter-logs-otlp-proto";
import { OTLPTraceExporter as JsonTraceExporter } from "@opentelemetry/exporter-trace-otlp-http";
import { OTLPTraceExporter as ProtoTraceExporter } from "@opentelemetry/exporter-trace-otlp-proto";
import { resourceFromAttributes } from "@opentelemetry/resources";
import {
  LoggerProvider,
  type LogRecordExporter,
  type SdkLogRecord,
  SimpleLogRecordProcessor,
} from "@opentelemetry/sdk-logs";
import {
  BasicTracerProvider,
  type ReadableSpan,
  SimpleSpanProcessor,
  type SpanExporter,
} from "@opentelemetry/sdk-trace-base";
import Database from "better-sqlite3";
import { expect } from "chai";
import { registerAttributeFunctions } from "../../daemon/query/sql-parts.js";
import { idHex, optionalIdHex } from "../../daemon/store/stored-ids.js";
import { logSeverityTextSql } from "../../daemon/store/stored-log-fields.js";
import { spanEventsSql, spanLinksSql } from "../../daemon/store/stored-span-fields.js";
import { type CollectorProcess, startCollectorProcess } from "../helpers/collector-process.js";

/** Records what the SDK's exporter reported for every export. */
class RecordingSpanExporter implements SpanExporter {
  readonly results: ExportResult[] = [];
  constructor(private readonly inner: SpanExporter) {}
  export(spans: ReadableSpan[], done: (result: ExportResult) => void): void {
    this.inner.export(spans, (result) => {
      this.results.push(result);
      done(result);
    });
  }
  shutdown(): Promise<void> {
    return this.inner.shutdown();
  }
}

class RecordingLogExporter implements LogRecordExporter {
  readonly results: ExportResult[] = [];
  constructor(private readonly inner: LogRecordExporter) {}
  export(logs: SdkLogRecord[], done: (result: ExportResult) => void): void {
    this.inner.export(logs as never, (result) => {
      this.results.push(result);
      done(result);
    });
  }
  shutdown(): Promise<void> {
    return this.inner.shutdown();
  }
  forceFlush(): Promise<void> {
    return this.inner.forceFlush?.() ?? Promise.resolve();
  }
}

const problems: string[] = [];
const diagnostics: DiagLogger = {
  error: (...args) => problems.push(`error: ${args.map(String).join(" ")}`),
  warn: (...args) => problems.push(`warn: ${args.map(String).join(" ")}`),
  info: () => {},
  debug: () => {},
  verbose: () => {},
};

const VARIANTS = [
  { encoding: "http/json", compression: "none" },
  { encoding: "http/json", compression: "gzip" },
  { encoding: "http/protobuf", compression: "none" },
  { encoding: "http/protobuf", compression: "gzip" },
] as const;

describe("OpenTelemetry JS SDK exporters against obsd", function () {
  this.timeout(30_000);
  let obsd: CollectorProcess;
  let db: Database.Database;

  before(async () => {
    obsd = await startCollectorProcess();
    diag.setLogger(diagnostics, { logLevel: DiagLogLevel.WARN, suppressOverrideMessage: true });
  });
  after(async () => {
    diag.disable();
    db?.close();
    expect(await obsd.stop()).to.equal(0);
  });
  beforeEach(() => {
    problems.length = 0;
  });

  for (const { encoding, compression } of VARIANTS) {
    const service = `sdk-${encoding.replace("/", "-")}-${compression}`;

    it(`exports traces over ${encoding} (${compression}) with success and no export warning`, async () => {
      const options = { url: `${obsd.url}/v1/traces`, compression: compression as never };
      const exporter = new RecordingSpanExporter(
        encoding === "http/json" ? new JsonTraceExporter(options) : new ProtoTraceExporter(options),
      );
      const provider = new BasicTracerProvider({
        resource: resourceFromAttributes({ "service.name": service, "deployment.environment.name": "test" }),
        spanProcessors: [new SimpleSpanProcessor(exporter)],
      });
      const tracer = provider.getTracer("interop-scope", "1.2.3");
      const parent = tracer.startSpan("GET /checkout", {
        kind: SpanKind.SERVER,
        attributes: { "http.request.method": "GET" },
      });
      const child = tracer.startSpan(
        "charge card",
        {
          kind: SpanKind.CLIENT,
          attributes: { "retry.count": 3, "payment.amount": 12.5, "payment.ok": false, "payment.tags": ["a", "b"] },
          links: [{ context: parent.spanContext(), attributes: { "link.kind": "follows" } }],
        },
        trace.setSpan(context.active(), parent),
      );
      child.addEvent("exception", { "exception.type": "CardDeclined", "exception.message": "declined" });
      child.setStatus({ code: SpanStatusCode.ERROR, message: "card declined" });
      child.end();
      parent.end();
      await provider.forceFlush();
      await provider.shutdown();

      expect(exporter.results.map((r) => r.code)).to.deep.equal([0, 0]); // ExportResultCode.SUCCESS
      expect(exporter.results.map((r) => r.error)).to.deep.equal([undefined, undefined]);
      expect(problems).to.deep.equal([]);

      db ??= new Database(obsd.dbPath, { readonly: true });
      // Span and log attributes are stored coded (key ids); read them as their JSON text.
      registerAttributeFunctions(db);
      const rows = db
        .prepare(
          `SELECT ${idHex("t.trace_id")} AS trace_id, ${idHex("s.span_id")} AS span_id, ${optionalIdHex("s.parent_span_id")} AS parent_span_id,
                  coalesce((SELECT name FROM span_names WHERE id = s.name_id), s.name) AS name, s.kind, s.status_code, s.status_message,
                  obs_attributes_json(s.attributes) AS attributes, ${spanEventsSql("s")} AS events,
                  ${spanLinksSql("s")} AS links, sc.name AS scope, sc.version AS scope_version, r.attributes AS resource
           FROM spans s JOIN services v ON v.id = s.service_id JOIN scopes sc ON sc.id = s.scope_id
           JOIN resources r ON r.id = s.resource_id JOIN traces t ON t.trace_key = s.trace_key
           WHERE v.name = ? ORDER BY s.parent_span_id IS NOT NULL`,
        )
        .all(service) as Record<string, any>[];
      expect(rows).to.have.length(2);
      const p = rows[0]!;
      const c = rows[1]!;
      expect(p.trace_id).to.equal(parent.spanContext().traceId);
      expect(p.span_id).to.equal(parent.spanContext().spanId);
      expect(p.parent_span_id).to.equal(null);
      expect(c.parent_span_id).to.equal(p.span_id);
      expect([p.kind, c.kind]).to.deep.equal([2, 3]);
      expect([c.status_code, c.status_message]).to.deep.equal([2, "card declined"]);
      expect(JSON.parse(c.attributes)).to.deep.equal({
        "retry.count": 3,
        "payment.amount": 12.5,
        "payment.ok": false,
        "payment.tags": ["a", "b"],
      });
      expect(JSON.parse(c.events)[0]).to.include({ name: "exception" });
      expect(JSON.parse(c.events)[0].attributes).to.deep.equal({
        "exception.type": "CardDeclined",
        "exception.message": "declined",
      });
      expect(JSON.parse(c.links)[0]).to.include({ traceId: p.trace_id, spanId: p.span_id });
      expect([c.scope, c.scope_version]).to.deep.equal(["interop-scope", "1.2.3"]);
      expect(JSON.parse(c.resource)).to.include({ "service.name": service, "deployment.environment.name": "test" });
    });

    it(`exports logs over ${encoding} (${compression}) with success and no export warning`, async () => {
      const options = { url: `${obsd.url}/v1/logs`, compression: compression as never };
      const exporter = new RecordingLogExporter(
        encoding === "http/json" ? new JsonLogExporter(options) : new ProtoLogExporter(options),
      );
      const provider = new LoggerProvider({
        resource: resourceFromAttributes({ "service.name": service }),
        processors: [new SimpleLogRecordProcessor({ exporter })],
      });
      const tracer = new BasicTracerProvider().getTracer("t");
      const span = tracer.startSpan("work");
      const logger = provider.getLogger("interop-logger", "4.5.6");
      logger.emit({
        severityNumber: SeverityNumber.WARN,
        severityText: "WARN",
        body: "disk almost full",
        attributes: { "disk.free_bytes": 1024, path: "/var" },
        context: trace.setSpan(context.active(), span),
      });
      logger.emit({ severityNumber: SeverityNumber.INFO, body: { structured: true, count: 2 } });
      span.end();
      await provider.forceFlush();
      await provider.shutdown();

      expect(exporter.results.length).to.be.greaterThan(0);
      expect(exporter.results.every((r) => r.code === 0 && r.error === undefined)).to.equal(true);
      expect(problems).to.deep.equal([]);

      db ??= new Database(obsd.dbPath, { readonly: true });
      // Span and log attributes are stored coded (key ids); read them as their JSON text.
      registerAttributeFunctions(db);
      const rows = db
        .prepare(
          `SELECT l.severity_number, ${logSeverityTextSql("l")} AS severity_text, l.body, obs_attributes_json(l.attributes) AS attributes, ${optionalIdHex("l.trace_id")} AS trace_id, ${optionalIdHex("l.span_id")} AS span_id
           FROM logs l JOIN services v ON v.id = l.service_id WHERE v.name = ? ORDER BY l.severity_number DESC`,
        )
        .all(service) as Record<string, any>[];
      expect(rows).to.have.length(2);
      expect(rows[0]).to.include({ severity_number: 13, severity_text: "WARN", body: '"disk almost full"' });
      expect(JSON.parse(rows[0]!.attributes)).to.deep.equal({ "disk.free_bytes": 1024, path: "/var" });
      expect(rows[0]!.trace_id).to.equal(span.spanContext().traceId);
      expect(rows[0]!.span_id).to.equal(span.spanContext().spanId);
      expect(JSON.parse(rows[1]!.body)).to.deep.equal({ structured: true, count: 2 });
    });
  }
});

/**
 * Runner telemetry (--otel-endpoint): a reporter that turns the run into OpenTelemetry traces
 * (a run span, a span per test, a span per step), metrics (tests by status, test durations,
 * model tokens) and logs (one per agent event), exported over OTLP/HTTP with the OpenTelemetry
 * JS SDK. Nothing here runs without an endpoint; the SDK is loaded only then.
 */
import { type Context, context, defaultTextMapSetter, type Span, SpanStatusCode, trace } from "@opentelemetry/api";
import { SeverityNumber } from "@opentelemetry/api-logs";
import { W3CTraceContextPropagator } from "@opentelemetry/core";
import { OTLPLogExporter } from "@opentelemetry/exporter-logs-otlp-http";
import { OTLPMetricExporter } from "@opentelemetry/exporter-metrics-otlp-http";
import { OTLPTraceExporter } from "@opentelemetry/exporter-trace-otlp-http";
import { resourceFromAttributes } from "@opentelemetry/resources";
import { BatchLogRecordProcessor, LoggerProvider } from "@opentelemetry/sdk-logs";
import { MeterProvider, PeriodicExportingMetricReader } from "@opentelemetry/sdk-metrics";
import { BasicTracerProvider, BatchSpanProcessor } from "@opentelemetry/sdk-trace-base";
import { OBS_VERSION } from "../../../shared/package-root.js";
import { hideUrlPasswords } from "../../../shared/url-passwords.js";
import type { StepRecord } from "../agent/agent-loop.js";
import type { Reporter, RunReport, TestRef, TestResult } from "../report/run-result.js";
import {
  INSTRUMENTATION_SCOPE,
  RUN_SPAN,
  resultAttributes,
  stepAttributes,
  stepLogBody,
  stepSpanName,
  TEST_DURATION_BUCKETS,
  TEST_DURATION_METRIC,
  TEST_METRIC,
  TOKEN_BUCKETS,
  TOKEN_METRIC,
  testAttributes,
  testSpanName,
} from "./telemetry-names.js";

const TRACE_CONTEXT = new W3CTraceContextPropagator();

export interface TelemetrySettings {
  /** OTLP/HTTP base URL; signals go to /v1/traces, /v1/metrics and /v1/logs under it. */
  endpoint: string;
  serviceName: string;
  environment: string | null;
}

interface Exporter<T> {
  export(items: T, done: (result: { code: number; error?: Error }) => void): void;
}

/** Remembers the first failure of each signal's exports, to say once at the end what was not delivered. */
function watchExports<T>(exporter: Exporter<T>, signal: string, failures: Map<string, string>): void {
  const original = exporter.export.bind(exporter);
  exporter.export = (items, done) =>
    original(items, (result) => {
      if (result.code !== 0 && !failures.has(signal)) failures.set(signal, result.error?.message ?? "export failed");
      done(result);
    });
}

export function signalUrl(endpoint: string, signal: "traces" | "metrics" | "logs"): string {
  return `${endpoint.replace(/\/+$/, "")}/v1/${signal}`;
}

export class TelemetryReporter implements Reporter {
  private readonly tracerProvider: BasicTracerProvider;
  private readonly loggerProvider: LoggerProvider;
  private readonly meterProvider: MeterProvider;
  private readonly failures = new Map<string, string>();
  private runSpan: Span | null = null;
  private runContext: Context = context.active();
  private readonly tests = new Map<string, { span: Span; context: Context }>();
  private readonly testCounter;
  private readonly durationHistogram;
  private readonly tokenHistogram;

  constructor(
    private readonly settings: TelemetrySettings,
    private readonly warn: (line: string) => void,
  ) {
    const resource = resourceFromAttributes({
      "service.name": settings.serviceName,
      "service.version": OBS_VERSION,
      ...(settings.environment ? { "deployment.environment.name": settings.environment } : {}),
    });
    const spans = new OTLPTraceExporter({ url: signalUrl(settings.endpoint, "traces") });
    const logs = new OTLPLogExporter({ url: signalUrl(settings.endpoint, "logs") });
    const metrics = new OTLPMetricExporter({ url: signalUrl(settings.endpoint, "metrics") });
    watchExports(spans, "traces", this.failures);
    watchExports(logs, "logs", this.failures);
    watchExports(metrics, "metrics", this.failures);
    this.tracerProvider = new BasicTracerProvider({ resource, spanProcessors: [new BatchSpanProcessor(spans)] });
    this.loggerProvider = new LoggerProvider({
      resource,
      processors: [new BatchLogRecordProcessor({ exporter: logs })],
    });
    // Exported once, at shutdown, unless a run outlasts the interval.
    this.meterProvider = new MeterProvider({
      resource,
      readers: [new PeriodicExportingMetricReader({ exporter: metrics, exportIntervalMillis: 60_000 })],
    });
    const meter = this.meterProvider.getMeter(INSTRUMENTATION_SCOPE, OBS_VERSION);
    this.testCounter = meter.createCounter(TEST_METRIC, { description: "Browser-check tests finished, by status" });
    this.durationHistogram = meter.createHistogram(TEST_DURATION_METRIC, {
      description: "Duration of browser-check tests",
      unit: "s",
      advice: { explicitBucketBoundaries: TEST_DURATION_BUCKETS },
    });
    this.tokenHistogram = meter.createHistogram(TOKEN_METRIC, {
      description: "Number of input and output tokens used, per test",
      unit: "{token}",
      advice: { explicitBucketBoundaries: TOKEN_BUCKETS },
    });
  }

  private get tracer() {
    return this.tracerProvider.getTracer(INSTRUMENTATION_SCOPE, OBS_VERSION);
  }

  private get logger() {
    return this.loggerProvider.getLogger(INSTRUMENTATION_SCOPE, OBS_VERSION);
  }

  onRunStart(info: { tests: number; files: number; engine: string; provider: string; model: string }): void {
    this.runSpan = this.tracer.startSpan(RUN_SPAN, {
      attributes: {
        "obs.run.tests": info.tests,
        "obs.run.files": info.files,
        "obs.engine": info.engine,
        "gen_ai.system": info.provider,
        "gen_ai.request.model": info.model,
      },
    });
    this.runContext = trace.setSpan(context.active(), this.runSpan);
  }

  /** One test span per attempt: a retry ends the failed attempt's span and starts the next. */
  onTestStart(test: TestRef, attempt = 1): void {
    const earlier = this.tests.get(test.id);
    if (earlier) {
      earlier.span.setStatus({ code: SpanStatusCode.ERROR, message: "failed; retried" });
      earlier.span.end();
    }
    const attributes = { ...testAttributes(test), "obs.test.attempt": attempt };
    const span = this.tracer.startSpan(testSpanName(test), { attributes }, this.runContext);
    this.tests.set(test.id, { span, context: trace.setSpan(this.runContext, span) });
  }

  /**
   * The W3C trace context headers (traceparent, tracestate) that make a request part of the
   * test's trace: the app under test's spans become children of the test's span.
   */
  traceHeaders(testId: string): Record<string, string> {
    const headers: Record<string, string> = {};
    const parent = this.tests.get(testId)?.context ?? this.runContext;
    TRACE_CONTEXT.inject(parent, headers, defaultTextMapSetter);
    return headers;
  }

  onStep(test: TestRef, step: StepRecord): void {
    const parent = this.tests.get(test.id)?.context ?? this.runContext;
    const end = Date.now();
    const span = this.tracer.startSpan(
      stepSpanName(step),
      { attributes: stepAttributes(step), startTime: end - step.durationMs },
      parent,
    );
    if (!step.ok) span.setStatus({ code: SpanStatusCode.ERROR, message: step.evidence });
    span.end(end);
    this.logger.emit({
      body: stepLogBody(step),
      severityNumber: step.ok ? SeverityNumber.INFO : SeverityNumber.WARN,
      severityText: step.ok ? "INFO" : "WARN",
      attributes: { ...testAttributes(test), ...stepAttributes(step) },
      context: trace.setSpan(parent, span),
    });
  }

  onTestFinish(result: TestResult): void {
    const entry = this.tests.get(result.id);
    const span = entry?.span ?? this.tracer.startSpan(testSpanName(result), {}, this.runContext);
    span.setAttributes(resultAttributes(result));
    if (result.status === "failed") {
      span.setStatus({ code: SpanStatusCode.ERROR, message: result.failure?.message ?? "failed" });
    }
    span.end();
    const attributes = { "obs.test.status": result.status };
    this.testCounter.add(1, attributes);
    if (result.status !== "skipped") this.durationHistogram.record(result.durationMs / 1000, attributes);
    // Only a test that asked the model used tokens: a skipped test, or one replayed whole from
    // the cache, recorded as 0 would pull every percentile of the histogram towards zero.
    if (result.usage.inputTokens + result.usage.outputTokens > 0) {
      this.tokenHistogram.record(result.usage.inputTokens, { "gen_ai.token.type": "input" });
      this.tokenHistogram.record(result.usage.outputTokens, { "gen_ai.token.type": "output" });
    }
    this.logger.emit({
      body: `${result.status} ${result.id}${result.failure ? `: ${result.failure.message}` : ""}`,
      severityNumber: result.status === "failed" ? SeverityNumber.ERROR : SeverityNumber.INFO,
      severityText: result.status === "failed" ? "ERROR" : "INFO",
      attributes: { ...testAttributes(result), ...resultAttributes(result) },
      context: entry?.context ?? this.runContext,
    });
    this.tests.delete(result.id);
  }

  /** Ends the run span and delivers everything before the process exits. */
  async onRunFinish(report: RunReport): Promise<void> {
    this.runSpan?.setAttributes({
      "obs.run.passed": report.totals.passed,
      "obs.run.failed": report.totals.failed,
      "obs.run.skipped": report.totals.skipped,
    });
    if (report.totals.failed > 0) this.runSpan?.setStatus({ code: SpanStatusCode.ERROR });
    this.runSpan?.end();
    await Promise.allSettled([
      this.tracerProvider.shutdown(),
      this.loggerProvider.shutdown(),
      this.meterProvider.shutdown(),
    ]);
    for (const [signal, reason] of this.failures) {
      this.warn(
        `obs: runner telemetry: ${signal} were not accepted by ${hideUrlPasswords(signalUrl(this.settings.endpoint, signal as "traces"))} (${hideUrlPasswords(reason)})`,
      );
    }
  }
}

/**
 * An app under test instrumented as a user's would be: every request it serves becomes a
 * server span, continuing the trace its W3C traceparent header names, exported with the
 * OpenTelemetry JS SDK to a collector. It also remembers each request's host and trace headers.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { context, defaultTextMapGetter, SpanKind } from "@opentelemetry/api";
import { W3CTraceContextPropagator } from "@opentelemetry/core";
import { OTLPTraceExporter } from "@opentelemetry/exporter-trace-otlp-http";
import { resourceFromAttributes } from "@opentelemetry/resources";
import { BasicTracerProvider, SimpleSpanProcessor } from "@opentelemetry/sdk-trace-base";

export interface SeenRequest {
  host: string;
  path: string;
  traceparent: string | null;
}

export interface TracedApp {
  url: string;
  port: number;
  requests: SeenRequest[];
  /** Delivers every span the app has ended to the collector. */
  flush(): Promise<void>;
  close(): Promise<void>;
}

const PIXEL = Buffer.from("R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7", "base64");

/**
 * Serves /orders.html, whose script comes from the same origin and whose image comes from
 * `localhost` on the same port: another host name, so an allowlist can tell them apart.
 */
export async function startTracedApp(collectorUrl: string, serviceName: string): Promise<TracedApp> {
  const provider = new BasicTracerProvider({
    resource: resourceFromAttributes({ "service.name": serviceName }),
    spanProcessors: [new SimpleSpanProcessor(new OTLPTraceExporter({ url: `${collectorUrl}/v1/traces` }))],
  });
  const tracer = provider.getTracer("traced-app");
  const propagator = new W3CTraceContextPropagator();
  const requests: SeenRequest[] = [];
  let port = 0;

  const pages: Record<string, { type: string; body: () => string | Buffer }> = {
    "/orders.html": {
      type: "text/html; charset=utf-8",
      body: () =>
        `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Orders</title></head><body>
<main><h1>Orders</h1><ul id="orders"></ul><img alt="" src="http://localhost:${port}/pixel.gif"></main>
<script src="/orders.js"></script></body></html>`,
    },
    "/orders.js": {
      type: "text/javascript",
      body: () =>
        `for (const name of ["Tea", "Scones"]) { const item = document.createElement("li"); item.textContent = name; document.getElementById("orders").append(item); }`,
    },
    "/pixel.gif": { type: "image/gif", body: () => PIXEL },
  };

  const server: Server = createServer((request, response) => {
    const path = new URL(request.url ?? "/", "http://app").pathname;
    const traceparent = request.headers.traceparent;
    requests.push({
      host: String(request.headers.host ?? ""),
      path,
      traceparent: typeof traceparent === "string" ? traceparent : null,
    });
    const parent = propagator.extract(context.active(), request.headers, defaultTextMapGetter);
    const span = tracer.startSpan(
      `GET ${path}`,
      { kind: SpanKind.SERVER, attributes: { "http.request.method": "GET", "url.path": path } },
      parent,
    );
    const page = pages[path];
    response.writeHead(page ? 200 : 404, { "content-type": page?.type ?? "text/plain" });
    response.end(page ? page.body() : "not found");
    span.setAttribute("http.response.status_code", page ? 200 : 404);
    span.end();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    requests,
    flush: () => provider.forceFlush(),
    close: async () => {
      await new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      });
      await provider.shutdown();
    },
  };
}

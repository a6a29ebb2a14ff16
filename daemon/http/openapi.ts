import { OBS_VERSION } from "../../shared/package-root.js";
import { apiSchema, querySchemas, type Schema } from "../../shared/record-schemas.js";
import { type AnySignal, SIGNALS } from "../signals/registry.js";
import { queryPaths } from "./openapi-query.js";

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });

function errorResponse(description: string) {
  return { description, content: { "application/json": { schema: ref("Error") } } };
}

function otlpExport(signal: AnySignal) {
  const request = signal.openapi.requestMessage;
  return {
    post: {
      operationId: signal.openapi.operationId,
      tags: ["ingestion"],
      summary: `Ingest OTLP/HTTP ${signal.name}`,
      description: `Accepts an ${request} as OTLP/JSON or OTLP/protobuf, optionally gzip-compressed. The body is capped (16 MiB by default) before and after inflation. Answers once the data is committed.`,
      parameters: [
        {
          name: "Content-Encoding",
          in: "header",
          required: false,
          schema: { type: "string", enum: ["gzip", "identity"] },
        },
      ],
      requestBody: {
        required: true,
        content: {
          "application/json": { schema: { type: "object", description: `OTLP/JSON ${request}` } },
          "application/x-protobuf": {
            schema: { type: "string", format: "binary", description: `protobuf ${request}` },
          },
        },
      },
      responses: {
        "200": {
          description:
            "Committed. For protobuf requests the body is the same JSON padded so that it also decodes as an empty protobuf response; when records older than the retention window were rejected, it is the protobuf response message with partial_success set (see docs/ingest.md).",
          content: {
            "application/json": { schema: ref("Accepted") },
            "application/x-protobuf": { schema: ref("Accepted") },
          },
        },
        "400": errorResponse("Not a valid OTLP payload, or a bad gzip stream"),
        "403": errorResponse("Host header is not a loopback name or the bound host"),
        "405": errorResponse("Method other than POST"),
        "413": errorResponse(
          "Body over the cap, transferred or inflated, or decoding to more values than one request may hold",
        ),
        "415": errorResponse("Unsupported Content-Type or Content-Encoding"),
        "500": errorResponse("Storage failure; nothing was acknowledged"),
        "503": errorResponse(
          "The database file was deleted or replaced while obsd ran; nothing is acknowledged until a restart",
        ),
      },
    },
  };
}

/** The OpenAPI 3.0.3 description of every route obsd serves. */
export function openApiDocument(): Schema {
  return {
    openapi: "3.0.3",
    info: {
      title: "obsd",
      version: OBS_VERSION,
      description:
        "Local telemetry collector: OTLP ingestion (HTTP here; gRPC on the same port) into a SQLite store and bounded JSON queries. Binds to 127.0.0.1 by default; no authentication.",
    },
    servers: [{ url: "http://127.0.0.1:27686" }],
    tags: [
      { name: "ingestion", description: "OTLP/HTTP receivers" },
      { name: "query", description: "Bounded JSON queries over stored telemetry" },
      { name: "service", description: "Health and self-description" },
    ],
    paths: {
      ...Object.fromEntries(SIGNALS.map((signal) => [signal.path, otlpExport(signal)])),
      ...queryPaths(),
      "/api/health": {
        get: {
          operationId: "getHealth",
          tags: ["service"],
          summary: "Liveness, collector identity, store path, retention and row counts",
          responses: {
            "200": { description: "The collector is up", content: { "application/json": { schema: ref("Health") } } },
          },
        },
      },
      "/openapi.json": {
        get: {
          operationId: "getOpenApi",
          tags: ["service"],
          summary: "This OpenAPI 3.0.3 document",
          responses: {
            "200": { description: "The document", content: { "application/json": { schema: { type: "object" } } } },
          },
        },
      },
      "/docs": {
        get: {
          operationId: "getDocs",
          tags: ["service"],
          summary: "An HTML index of these routes, with no external assets",
          responses: { "200": { description: "HTML page", content: { "text/html": { schema: { type: "string" } } } } },
        },
      },
    },
    components: {
      schemas: {
        Error: apiSchema("error"),
        Accepted: apiSchema("accepted"),
        Health: apiSchema("health"),
        ...querySchemas(),
      },
    },
  };
}

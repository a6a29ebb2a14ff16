import contentType from "content-type";
import type { Request, Response, Router } from "express";
import express from "express";
import { nowNs } from "../../shared/time.js";
import type { IngestPipeline, IngestResult } from "../ingest/ingest-pipeline.js";
import { TooManyValuesError } from "../otlp/decode-allowance.js";
import type { WireFormat } from "../otlp/decode-request.js";
import { PayloadError } from "../otlp/payload-error.js";
import { StorageError, StoreLostError } from "../store/store-errors.js";
import { isLoopbackOrigin } from "./host-guard.js";
import { HttpError } from "./http-error.js";
import { jsonAcceptedBody, protobufAcceptedBody } from "./otlp-response.js";
import { readBody } from "./read-body.js";

const FORMATS: Record<string, WireFormat> = {
  "application/json": "json",
  "application/x-protobuf": "protobuf",
  "application/protobuf": "protobuf",
};

/** The wire format named by the Content-Type media type (parameters such as charset are allowed). */
export function wireFormatOf(header: string | undefined): WireFormat {
  if (!header) throw new HttpError(415, "missing Content-Type: send application/json or application/x-protobuf");
  let type: string;
  try {
    type = contentType.parse(header).type;
  } catch {
    throw new HttpError(415, `invalid Content-Type "${header}"`);
  }
  const format = FORMATS[type];
  if (!format) {
    throw new HttpError(415, `unsupported Content-Type "${type}": send application/json or application/x-protobuf`);
  }
  return format;
}

export interface IngestOptions {
  pipeline: IngestPipeline;
  maxBodyBytes: number;
}

async function ingest(req: Request, res: Response, options: IngestOptions, signal: "traces" | "logs"): Promise<void> {
  const format = wireFormatOf(req.headers["content-type"]);
  const body = await readBody(req, options.maxBodyBytes);
  let result: IngestResult;
  try {
    result = await options.pipeline.ingest(signal, format, body, nowNs());
  } catch (error) {
    if (error instanceof TooManyValuesError) throw new HttpError(413, error.message);
    if (error instanceof PayloadError) throw new HttpError(400, `invalid OTLP ${signal} payload: ${error.message}`);
    if (error instanceof StoreLostError) throw new HttpError(503, `store unavailable: ${error.message}`);
    if (error instanceof StorageError) throw new HttpError(500, `storage failure: ${error.message}`);
    throw error;
  }
  if (format === "protobuf") {
    res.status(200).type("application/x-protobuf").send(protobufAcceptedBody(result.accepted, result.rejected));
  } else {
    res
      .status(200)
      .type("application/json")
      .send(jsonAcceptedBody(result.accepted, signal, result.rejected));
  }
}

/** Browser apps served from localhost may export; other origins get no CORS headers. */
function corsForLoopbackOrigins(req: Request, res: Response, next: () => void): void {
  const origin = req.headers.origin;
  if (origin && isLoopbackOrigin(origin)) {
    res.setHeader("Access-Control-Allow-Origin", origin);
    res.setHeader("Vary", "Origin");
    res.setHeader("Access-Control-Allow-Methods", "POST, OPTIONS");
    res.setHeader("Access-Control-Allow-Headers", "Content-Type, Content-Encoding");
    res.setHeader("Access-Control-Max-Age", "600");
  }
  if (req.method === "OPTIONS") {
    res.status(204).end();
    return;
  }
  next();
}

/** `POST /v1/traces` and `POST /v1/logs`. */
export function ingestRoutes(options: IngestOptions): Router {
  const router = express.Router();
  router.use("/v1", corsForLoopbackOrigins);
  for (const signal of ["traces", "logs"] as const) {
    router.post(`/v1/${signal}`, (req, res, next) => {
      ingest(req, res, options, signal).catch(next);
    });
    router.all(`/v1/${signal}`, (_req, _res, next) => {
      next(new HttpError(405, `use POST for /v1/${signal}`, { Allow: "POST, OPTIONS" }));
    });
  }
  return router;
}

import contentType from "content-type";
import type { Request, Response, Router } from "express";
import express from "express";
import { nowNs } from "../../shared/time.js";
import { IngestError, ingestErrorOf, toHttp } from "../ingest/ingest-errors.js";
import type { IngestPipeline, IngestResult } from "../ingest/ingest-pipeline.js";
import type { WireFormat } from "../otlp/decode-request.js";
import { SIGNALS, type SignalName } from "../signals/registry.js";
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
  const unsupported = (message: string) => new IngestError("unsupported-media-type", message);
  if (!header) throw unsupported("missing Content-Type: send application/json or application/x-protobuf");
  let type: string;
  try {
    type = contentType.parse(header).type;
  } catch {
    throw unsupported(`invalid Content-Type "${header}"`);
  }
  const format = FORMATS[type];
  if (!format) {
    throw unsupported(`unsupported Content-Type "${type}": send application/json or application/x-protobuf`);
  }
  return format;
}

export interface IngestOptions {
  pipeline: IngestPipeline;
  maxBodyBytes: number;
}

/** An ingest failure as the HTTP answer the error handler sends (app.ts: `{"error": message}`). */
function rendered(error: unknown, signal: SignalName): unknown {
  const failure = ingestErrorOf(error, signal);
  if (!failure) return error;
  const { status, body, headers } = toHttp(failure);
  return new HttpError(status, body.error, headers);
}

/** Reads, decodes and stores one export; throws what ingest failed with. */
async function accept(
  req: Request,
  options: IngestOptions,
  signal: SignalName,
): Promise<{ format: WireFormat; result: IngestResult }> {
  const format = wireFormatOf(req.headers["content-type"]);
  const body = await readBody(req, options.maxBodyBytes);
  return { format, result: await options.pipeline.ingest(signal, format, body, nowNs()) };
}

async function ingest(req: Request, res: Response, options: IngestOptions, signal: SignalName): Promise<void> {
  let format: WireFormat;
  let result: IngestResult;
  try {
    ({ format, result } = await accept(req, options, signal));
  } catch (error) {
    throw rendered(error, signal);
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

/** `POST /v1/traces`, `POST /v1/logs`: one route per registered signal, at its module's path. */
export function ingestRoutes(options: IngestOptions): Router {
  const router = express.Router();
  router.use("/v1", corsForLoopbackOrigins);
  for (const { name, path } of SIGNALS) {
    router.post(path, (req, res, next) => {
      ingest(req, res, options, name).catch(next);
    });
    router.all(path, (_req, _res, next) => {
      next(new HttpError(405, `use POST for ${path}`, { Allow: "POST, OPTIONS" }));
    });
  }
  return router;
}

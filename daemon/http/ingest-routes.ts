import type { IncomingMessage, ServerResponse } from "node:http";
import contentType from "content-type";
import type { Request, Response, Router } from "express";
import express from "express";
import { nowNs } from "../../shared/time.js";
import { IngestError, ingestErrorOf, toHttp } from "../ingest/ingest-errors.js";
import type { IngestPipeline, IngestResult } from "../ingest/ingest-pipeline.js";
import type { WireFormat } from "../otlp/decode-request.js";
import { SIGNALS, type SignalName } from "../signals/registry.js";
import { isLoopbackOrigin } from "./host-guard.js";
import { HttpError, sendErrorJson } from "./http-error.js";
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

/** An ingest failure as the HTTP answer it gets (`{"error": message}`, sendErrorJson). */
function rendered(error: unknown, signal: SignalName): unknown {
  const failure = ingestErrorOf(error, signal);
  if (!failure) return error;
  const { status, body, headers } = toHttp(failure);
  return new HttpError(status, body.error, headers);
}

/** Reads, decodes and stores one export; throws what ingest failed with. */
async function accept(
  req: IncomingMessage,
  options: IngestOptions,
  signal: SignalName,
): Promise<{ format: WireFormat; result: IngestResult }> {
  const format = wireFormatOf(req.headers["content-type"]);
  const body = await readBody(req, options.maxBodyBytes);
  return { format, result: await options.pipeline.ingest(signal, format, body, nowNs()) };
}

function sendAccepted(res: ServerResponse, contentType: string, body: Buffer): void {
  res.statusCode = 200;
  res.setHeader("Content-Type", contentType);
  res.setHeader("Content-Length", body.length);
  res.end(body);
}

/**
 * Answers one export in full, success or error, on Node's own request and response: the one
 * handler of `POST /v1/<signal>`, whether the request came straight from the server
 * (exportListener) or through the express router.
 */
async function answerExport(
  req: IncomingMessage,
  res: ServerResponse,
  options: IngestOptions,
  signal: SignalName,
): Promise<void> {
  let format: WireFormat;
  let result: IngestResult;
  try {
    ({ format, result } = await accept(req, options, signal));
  } catch (error) {
    sendErrorJson(res, rendered(error, signal));
    return;
  }
  if (format === "protobuf") {
    sendAccepted(res, "application/x-protobuf", protobufAcceptedBody(result.accepted, result.rejected));
  } else {
    sendAccepted(res, "application/json; charset=utf-8", jsonAcceptedBody(result.accepted, signal, result.rejected));
  }
}

/**
 * Browser apps served from localhost may export; other origins get no CORS headers. Set for every
 * `/v1` request: by the router's middleware, or by exportListener for the exports it answers.
 */
function allowLoopbackOrigin(req: IncomingMessage, res: ServerResponse): void {
  const origin = req.headers.origin;
  if (origin && isLoopbackOrigin(origin)) {
    res.setHeader("Access-Control-Allow-Origin", origin);
    res.setHeader("Vary", "Origin");
    res.setHeader("Access-Control-Allow-Methods", "POST, OPTIONS");
    res.setHeader("Access-Control-Allow-Headers", "Content-Type, Content-Encoding");
    res.setHeader("Access-Control-Max-Age", "600");
  }
}

function corsForLoopbackOrigins(req: Request, res: Response, next: () => void): void {
  allowLoopbackOrigin(req, res);
  if (req.method === "OPTIONS") {
    res.status(204).end();
    return;
  }
  next();
}

/**
 * `POST /v1/traces`, `/v1/logs`, `/v1/metrics`: one route per registered signal, at its module's
 * path, with its preflight and its 405 for other methods. Exports sent to the exact path come
 * straight from the server instead (exportListener); these routes answer the rest (a trailing
 * slash, another case, a query string) the same way.
 */
export function ingestRoutes(options: IngestOptions): Router {
  const router = express.Router();
  router.use("/v1", corsForLoopbackOrigins);
  for (const { name, path } of SIGNALS) {
    router.post(path, (req, res, next) => {
      answerExport(req, res, options, name).catch(next);
    });
    router.all(path, (_req, _res, next) => {
      next(new HttpError(405, `use POST for ${path}`, { Allow: "POST, OPTIONS" }));
    });
  }
  return router;
}

/**
 * The server's request listener: an export (`POST` to a signal's exact path, from a Host the
 * guard allows) goes straight to its handler, everything else to the express app. Express's
 * router walks its layers for every request, with a closure and a match per layer: under load
 * that was about two fifths of the HTTP thread's time per export and more than half of what it
 * allocated (docs/perf-history/design-decisions.md). Both answer through answerExport, with the
 * same CORS headers.
 */
export function exportListener(
  app: (req: IncomingMessage, res: ServerResponse) => void,
  options: IngestOptions,
  hostAllowed: (host: string | undefined) => boolean,
): (req: IncomingMessage, res: ServerResponse) => void {
  const signals = new Map<string | undefined, SignalName>(SIGNALS.map(({ name, path }) => [path, name]));
  return (req, res) => {
    const signal = req.method === "POST" ? signals.get(req.url) : undefined;
    if (signal === undefined || !hostAllowed(req.headers.host)) {
      app(req, res);
      return;
    }
    allowLoopbackOrigin(req, res);
    answerExport(req, res, options, signal).catch((error) => {
      // Express's router would catch what its error handler throws; here nothing else would,
      // and an unhandled rejection ends the process.
      try {
        sendErrorJson(res, error);
      } catch {
        res.destroy();
      }
    });
  };
}

import type { ServerResponse } from "node:http";

/** An error with the HTTP status it should be answered with. The body is `{"error": message}`. */
export class HttpError extends Error {
  override name = "HttpError";
  constructor(
    readonly status: number,
    message: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }
}

/**
 * Answers `error` as `{"error": message}` with its status and headers, on Node's own response
 * (the express app's error handler and the direct export route both end here, so an error reads
 * the same whichever answered it). Anything but an HttpError, or an error that says its status,
 * is a 500 whose detail goes to the collector's log, not to the client. A response already
 * under way cannot say so: its connection is closed, as express's final handler does.
 */
export function sendErrorJson(res: ServerResponse, error: unknown): void {
  if (res.headersSent) {
    console.error(`obsd: ${(error as Error | null)?.stack ?? error}`);
    res.destroy();
    return;
  }
  let status: number;
  let message: string;
  if (error instanceof HttpError) {
    for (const [name, value] of Object.entries(error.headers)) res.setHeader(name, value);
    status = error.status;
    message = error.message;
  } else {
    const said = (error as { status?: unknown } | null)?.status;
    status = typeof said === "number" && said >= 400 && said < 600 ? said : 500;
    if (status === 500) console.error(`obsd: ${(error as Error | null)?.stack ?? error}`);
    message = status === 500 ? "internal error" : String((error as Error | null)?.message ?? error);
  }
  const body = JSON.stringify({ error: message });
  res.statusCode = status;
  res.setHeader("Content-Type", "application/json; charset=utf-8");
  res.setHeader("Content-Length", Buffer.byteLength(body));
  res.end(body);
}

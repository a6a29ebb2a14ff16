/** A request body that is not a valid OTLP payload. The HTTP layer answers it with 400. */
export class PayloadError extends Error {
  override name = "PayloadError";
}

/**
 * What a query can fail with, independent of any transport: HTTP renders invalid_argument as
 * 400 and not_found as 404; another front-end (MCP, gRPC) renders them its own way.
 */
export type QueryErrorCode = "invalid_argument" | "not_found";

export class QueryError extends Error {
  override name = "QueryError";
  constructor(
    message: string,
    readonly code: QueryErrorCode = "invalid_argument",
  ) {
    super(message);
  }
}

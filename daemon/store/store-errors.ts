/** The store refused or failed a write; the HTTP layer answers 500. */
export class StorageError extends Error {
  override name = "StorageError";
}

/**
 * The store cannot take this write now but a retry can succeed: the collector is stopping, a
 * thread of the pipeline stopped, or another connection holds the file locked. Clients are
 * told to retry (HTTP 503, gRPC UNAVAILABLE); a plain StorageError is permanent (500, INTERNAL).
 */
export class StoreUnavailableError extends StorageError {
  override name = "StoreUnavailableError";
}

/**
 * The database file was deleted or replaced under the running collector (store-file-watch.ts):
 * nothing more is acknowledged, the HTTP layer answers 503, and the collector exits non-zero.
 */
export class StoreLostError extends StorageError {
  override name = "StoreLostError";
}

/** The database could not be opened; `kind: "version"` means it was written by a newer obs. */
export class StoreOpenError extends Error {
  override name = "StoreOpenError";
  constructor(
    message: string,
    readonly kind: "version" | "open",
  ) {
    super(message);
  }
}

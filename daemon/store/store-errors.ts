/** The store refused or failed a write; the HTTP layer answers 500. */
export class StorageError extends Error {
  override name = "StorageError";
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

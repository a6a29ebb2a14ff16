/** The store refused or failed a write; the HTTP layer answers 500. */
export class StorageError extends Error {
  override name = "StorageError";
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

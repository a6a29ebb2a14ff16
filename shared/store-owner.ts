/**
 * Who holds a store file: one collector at a time. The daemon records it next to the store
 * while it holds the lock; both the daemon and the CLI name it when they refuse a second start.
 */
export interface StoreHolder {
  pid: number;
  cwd: string;
  /** Null until the holder listens. */
  port: number | null;
  baseUrl: string | null;
}

/** The refusal of a second collector on a store in use, with the two ways out. */
export function storeInUseMessage(dbPath: string, holder: StoreHolder | null): string {
  const who = holder
    ? `the collector started in ${holder.cwd}${holder.port === null ? " (still starting)" : ` on port ${holder.port}`}, pid ${holder.pid}`
    : "another collector that is still starting";
  return [
    `the store ${dbPath} is in use by ${who}; a store belongs to one collector at a time.`,
    "Use that collector, or give this one its own store: --db PATH, or --project-store (also OBS_PROJECT_STORE=1) for a store of this project folder's own under the state folder.",
  ].join("\n");
}

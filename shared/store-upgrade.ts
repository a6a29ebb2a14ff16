/**
 * obsd prints this line before it brings an older database up to date, which takes a while on
 * a large store; `obs start` keeps waiting while the collector's log shows it.
 */
export const STORE_UPGRADE_MARKER = "upgrading the database";

export function storeUpgradeNotice(path: string, from: number, to: number): string {
  return `obsd: ${STORE_UPGRADE_MARKER} ${path} from schema version ${from} to ${to} (once; about 20 s per million spans)`;
}

/** One line per step of an upgrade as it ends, so a long one shows it is moving. */
export function storeUpgradeStepNotice(version: number, description: string, ms: number): string {
  return `obsd: ${STORE_UPGRADE_MARKER}: schema version ${version} (${description}) done in ${(ms / 1000).toFixed(1)} s`;
}

/** How often a long step of an upgrade says how far it is. */
export const UPGRADE_PROGRESS_EVERY_MS = 2_000;

export function storeUpgradeProgressNotice(version: number, done: number, total: number, unit = ""): string {
  const share = total > 0 ? Math.floor((100 * done) / total) : 100;
  const of = `${done.toLocaleString("en-US")} of ${total.toLocaleString("en-US")}${unit ? ` ${unit}` : ""}`;
  return `obsd: ${STORE_UPGRADE_MARKER}: schema version ${version}: ${of} (${share}%)`;
}

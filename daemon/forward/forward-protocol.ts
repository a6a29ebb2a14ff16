import type { ForwardingStatusRecord } from "../../shared/api-records.js";
import type { ForwardDestination } from "../../shared/forward-settings.js";
import type { ForwardProgress } from "../store/forward-outbox.js";

/** What the forwarder thread starts with. */
export interface ForwardWorkerData {
  dbPath: string;
  destinations: ForwardDestination[];
  /** How often an idle destination looks for new rows. */
  pollMs: number;
}

/** One destination's state, as health and status show it (the record /api/health carries). */
export type DestinationStatus = ForwardingStatusRecord;

/** Forwarder thread to main thread. */
export type ForwardMessage =
  | { type: "progress"; progress: ForwardProgress }
  | { type: "status"; destinations: DestinationStatus[] }
  /** A line for the collector's log (a dropped batch). */
  | { type: "notice"; line: string };

/** Main thread to forwarder thread. */
export type ForwardCommand = { type: "stop" };

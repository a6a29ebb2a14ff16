import type { ForwardDestination } from "../../shared/forward-settings.js";
import type { ForwardProgress } from "../store/forward-outbox.js";

/** What the forwarder thread starts with. */
export interface ForwardWorkerData {
  dbPath: string;
  destinations: ForwardDestination[];
  /** How often an idle destination looks for new rows. */
  pollMs: number;
}

/** One destination's state, as health and status show it. */
export interface DestinationStatus {
  url: string;
  protocol: string;
  /** ok: delivering or caught up; retrying: the upstream failed and is being retried. */
  state: "ok" | "retrying";
  /** When the current run of failures began (ISO time); null while ok. */
  retryingSince: string | null;
  /** The latest failure, retried or permanent; null until one happened. Never holds a header value. */
  lastError: string | null;
  /** Records accepted but not yet delivered, and how long the oldest of them has waited. */
  lagRecords: number;
  lagSeconds: number;
  sent: number;
  retried: number;
  dropped: number;
}

/** Forwarder thread to main thread. */
export type ForwardMessage =
  | { type: "progress"; progress: ForwardProgress }
  | { type: "status"; destinations: DestinationStatus[] }
  /** A line for the collector's log (a dropped batch). */
  | { type: "notice"; line: string };

/** Main thread to forwarder thread. */
export type ForwardCommand = { type: "stop" };

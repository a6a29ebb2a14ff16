import type { ForwardingStatusRecord } from "./api-records.js";
import type { CollectorEndpoint } from "./endpoints.js";

/**
 * The control socket's protocol: newline-delimited JSON, one request and one answer per line;
 * several requests may be sent at once, and their answers come in the same order.
 * Every running collector serves it on a Unix socket under `<state>/monitor/run/`, next to its
 * registry file. Clients use it to tell a collector apart from any other process on its port,
 * and to stop it without ever signalling a process by pid.
 */

/** What a collector records about itself in `<state>/monitor/run/<instanceId>.json`. */
export interface RegistryEntry {
  instanceId: string;
  pid: number;
  cwd: string;
  host: string;
  port: number;
  baseUrl: string;
  dbPath: string;
  version: string;
  startedAt: string;
  /**
   * When the collector's process started, in clock ticks after boot (field 22 of
   * `/proc/self/stat`): with its pid, what tells it from a later process given the same pid,
   * whatever the wall clock did since. Absent without /proc, and from collectors older than it.
   */
  startTicks?: number;
  socketPath: string;
  /** Every port listened on, with its OTLP protocols; absent from collectors older than gRPC support. */
  endpoints?: CollectorEndpoint[];
}

export type ControlRequest = { op: "identify" } | { op: "usage" } | { op: "shutdown" };

/** The collector's CPU and resident memory, measured by pidusage inside the collector. */
export interface ProcessUsage {
  /** Percent of one core since the previous usage request (or since start, the first time). */
  cpuPercent: number;
  memoryBytes: number;
}

export type ControlAnswer =
  | { ok: true; op: "identify"; identity: RegistryEntry }
  /** `forwarding`: each --forward destination's state (absent from collectors without forwarding). */
  | { ok: true; op: "usage"; usage: ProcessUsage; forwarding?: ForwardingStatusRecord[] }
  | { ok: true; op: "shutdown"; instanceId: string }
  /** `op`: the request's op, when it named one (known or not); answers come in the order of their requests. */
  | { ok: false; op?: string; error: string };

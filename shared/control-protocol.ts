/**
 * The control socket's protocol: newline-delimited JSON, one request and one answer per line.
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
  socketPath: string;
}

export type ControlRequest = { op: "identify" } | { op: "shutdown" };

export type ControlAnswer =
  | { ok: true; op: "identify"; identity: RegistryEntry }
  | { ok: true; op: "shutdown"; instanceId: string }
  | { ok: false; error: string };

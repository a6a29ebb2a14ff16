import type { StartIdentity } from "../../shared/process-alive.js";

/**
 * What discovery makes of a registry entry that its socket did not answer for: kept as
 * `unresponsive` (its socket accepts but does not answer: stopped or busy), kept as
 * `withoutSocket` (its socket is gone, refuses, or is not asked, while its collector runs), or
 * `stale` (its collector is gone: the entry and its socket are removed).
 */
export type SilentEntryFate = "unresponsive" | "withoutSocket" | "stale";

export interface SilentEntryFacts {
  /** How the socket failed: accepted without answering in time, gone or refusing, or not asked. */
  socket: "timeout" | "unreachable" | "unasked";
  /** Whether a process with the entry's pid runs (processAlive). */
  alive: boolean;
  /** Whether that process is the one that wrote the entry, by its start (startIdentity). */
  identity: StartIdentity;
  /** Whether this system shows processes' starts (/proc), so that `identity` could be known. */
  startsReadable: boolean;
}

/**
 * The fate of an entry whose socket gave no answer. The pid's process started at another
 * moment than the entry records, after boot (a pid given to a later process), or no process
 * with it: stale. A socket that accepts without answering belongs to a process that runs:
 * kept. A socket gone or refusing is kept for a live pid where starts can be read (an entry an
 * older obs wrote has none to compare: its live pid is taken for it, as before), and where they
 * cannot (no /proc), only when the process is known for the entry's: a collector that crashed
 * there, its pid given to another process, would otherwise be kept for ever. One whose socket
 * was not asked (a folder other users can reach) is kept while its pid runs.
 */
export function silentEntryFate(facts: SilentEntryFacts): SilentEntryFate {
  if (!facts.alive || facts.identity === "other") return "stale";
  if (facts.socket === "timeout") return "unresponsive";
  // Not asked, so nothing says the socket is gone: removed, the entry would be written again
  // by its collector at its next check, and removed again by the next command.
  if (facts.socket === "unasked") return "withoutSocket";
  return facts.identity === "same" || facts.startsReadable ? "withoutSocket" : "stale";
}

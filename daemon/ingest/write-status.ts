/** Whether writes currently succeed, as `/api/health` reports it. */
export interface WriteStatusSnapshot {
  ok: boolean;
  /** When the current run of failures began (ISO 8601), or null while writes succeed. */
  failingSince: string | null;
  /** The most recent failure's message, kept after recovery so a past problem stays visible. */
  lastError: string | null;
  /** Failed write requests since the last success. */
  failedSinceOk: number;
}

/** A change worth telling the person running the collector about. */
export type WriteStatusChange =
  | { type: "failing"; message: string }
  | { type: "recovered"; failed: number; sinceIso: string };

/**
 * Tracks write outcomes so a full disk or a dead writer is visible in health and on stderr,
 * once per change rather than once per request.
 */
export class WriteStatus {
  private failingSince: Date | null = null;
  private lastError: string | null = null;
  private failedSinceOk = 0;

  succeeded(): WriteStatusChange | null {
    if (this.failingSince === null) return null;
    const change: WriteStatusChange = {
      type: "recovered",
      failed: this.failedSinceOk,
      sinceIso: this.failingSince.toISOString(),
    };
    this.failingSince = null;
    this.failedSinceOk = 0;
    return change;
  }

  failed(message: string, at: Date): WriteStatusChange | null {
    this.lastError = message;
    this.failedSinceOk += 1;
    if (this.failingSince !== null) return null;
    this.failingSince = at;
    return { type: "failing", message };
  }

  snapshot(): WriteStatusSnapshot {
    return {
      ok: this.failingSince === null,
      failingSince: this.failingSince?.toISOString() ?? null,
      lastError: this.lastError,
      failedSinceOk: this.failedSinceOk,
    };
  }
}

/** The stderr line for a change. */
export function writeStatusLine(change: WriteStatusChange): string {
  if (change.type === "failing") return `obsd: writes are failing: ${change.message}`;
  const requests = change.failed === 1 ? "1 request" : `${change.failed} requests`;
  return `obsd: writes succeed again (${requests} failed since ${change.sinceIso})`;
}

import { formatDuration } from "../../shared/duration.js";
import { nsToIso } from "../../shared/time.js";
import type { Signal } from "./decode-protocol.js";

/** Records of one request not stored because retention would delete them at once. */
export interface Rejected {
  count: number;
  /** Why, for the exporter (OTLP `partialSuccess.errorMessage`). */
  message: string;
}

function records(signal: Signal, count: number): string {
  if (signal === "traces") return count === 1 ? "1 span" : `${count} spans`;
  return count === 1 ? "1 log record" : `${count} log records`;
}

/** The answer's explanation: what was refused, the window's edge, and the flag that moves it. */
export function rejectedMessage(signal: Signal, count: number, retentionMs: number, cutoffNs: bigint): string {
  const verb = count === 1 ? "is" : "are";
  return (
    `${records(signal, count)} ${verb} older than the retention window (--retention ${formatDuration(retentionMs)}: ` +
    `telemetry timed before ${nsToIso(cutoffNs)} is deleted) and ${count === 1 ? "was" : "were"} not stored; ` +
    "send current timestamps, or start obsd with a longer --retention"
  );
}

const NOTICE_INTERVAL_MS = 60_000;

/**
 * The collector's log line about rejected records: one at most per minute, however many
 * requests, each counting what was rejected since the previous line. A sender replaying old
 * data would otherwise fill the log with one line per request.
 */
export class RejectionNotice {
  private lastAtMs: number | null = null;
  private pending = { spans: 0, logs: 0 };

  constructor(private readonly retentionMs: number) {}

  /** Counts a request's rejections; returns the line to print, or null within a minute of the last. */
  note(signal: Signal, count: number, nowMs: number): string | null {
    if (signal === "traces") this.pending.spans += count;
    else this.pending.logs += count;
    if (this.lastAtMs !== null && nowMs - this.lastAtMs < NOTICE_INTERVAL_MS) return null;
    const since = this.lastAtMs === null ? "" : ` since ${new Date(this.lastAtMs).toISOString()}`;
    const parts = [
      ...(this.pending.spans > 0 ? [records("traces", this.pending.spans)] : []),
      ...(this.pending.logs > 0 ? [records("logs", this.pending.logs)] : []),
    ];
    this.lastAtMs = nowMs;
    this.pending = { spans: 0, logs: 0 };
    return (
      `obsd: rejected ${parts.join(" and ")}${since} older than the retention window ` +
      `(--retention ${formatDuration(this.retentionMs)}); senders were told in the answer's partialSuccess ` +
      "(said at most once a minute)"
    );
  }
}

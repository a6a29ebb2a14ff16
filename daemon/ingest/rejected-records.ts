import { formatDuration } from "../../shared/duration.js";
import { nsToIso } from "../../shared/time.js";
import { SIGNALS, type SignalName, signalNamed } from "../signals/registry.js";

/** Records of one request not stored because retention would delete them at once. */
export interface Rejected {
  count: number;
  /** Why, for the exporter (OTLP `partialSuccess.errorMessage`). */
  message: string;
}

/**
 * The answer's explanation: what was refused, the window's edge, and the flag that moves it;
 * first, the records of `count` that had no time at all (`untimed`), which no window would keep.
 */
export function rejectedMessage(
  signal: SignalName,
  count: number,
  retentionMs: number,
  cutoffNs: bigint,
  untimed = 0,
): string {
  const words = (n: number) => signalNamed(signal).countWords(n);
  const parts: string[] = [];
  if (untimed > 0) {
    parts.push(
      `${words(untimed)} ${untimed === 1 ? "has" : "have"} no time (timeUnixNano is 0 or absent) and ` +
        `${untimed === 1 ? "was" : "were"} not stored: OTLP requires it`,
    );
  }
  const old = count - untimed;
  if (old > 0) {
    parts.push(
      `${words(old)} ${old === 1 ? "is" : "are"} older than the retention window (--retention ${formatDuration(retentionMs)}: ` +
        `telemetry timed before ${nsToIso(cutoffNs)} is deleted) and ${old === 1 ? "was" : "were"} not stored; ` +
        "send current timestamps, or start obsd with a longer --retention",
    );
  }
  return parts.join("; ");
}

const NOTICE_INTERVAL_MS = 60_000;

/** Runs `run` once after `delayMs`, unless cancelled. */
export type Schedule = (run: () => void, delayMs: number) => { cancel(): void };

/** A timer that does not keep the process alive: a pending count is no reason to stay up. */
const unrefTimeout: Schedule = (run, delayMs) => {
  const timer = setTimeout(run, delayMs);
  timer.unref();
  return { cancel: () => clearTimeout(timer) };
};

/**
 * The collector's log line about rejected records: one at most per minute, however many
 * requests, each counting what was rejected since the previous line. A sender replaying old
 * data would otherwise fill the log with one line per request. What is counted within a minute
 * of a line is said when the minute is up (or at stop), not only when another rejection comes:
 * a short burst's tail would otherwise never reach the log.
 */
export class RejectionNotice {
  private lastAtMs: number | null = null;
  /** Counted and not yet said, per signal. */
  private pending = new Map<SignalName, number>();
  private timer: { cancel(): void } | null = null;

  constructor(
    private readonly retentionMs: number,
    private readonly say: (line: string) => void,
    private readonly clock: () => number = Date.now,
    private readonly schedule: Schedule = unrefTimeout,
  ) {}

  /** Counts a request's rejections: says them now, or when a minute has passed since the last line. */
  note(signal: SignalName, count: number): void {
    this.pending.set(signal, (this.pending.get(signal) ?? 0) + count);
    const nowMs = this.clock();
    if (this.lastAtMs === null || nowMs - this.lastAtMs >= NOTICE_INTERVAL_MS) {
      this.timer?.cancel();
      this.timer = null;
      this.flush(nowMs);
    } else {
      this.timer ??= this.schedule(
        () => {
          this.timer = null;
          this.flush(this.clock());
        },
        this.lastAtMs + NOTICE_INTERVAL_MS - nowMs,
      );
    }
  }

  /** Says what is counted and not yet said; the collector calls it as it stops. */
  stop(): void {
    this.timer?.cancel();
    this.timer = null;
    this.flush(this.clock());
  }

  private flush(nowMs: number): void {
    if (![...this.pending.values()].some((count) => count > 0)) return;
    this.say(noticeLine(this.pending, this.lastAtMs, this.retentionMs));
    this.lastAtMs = nowMs;
    this.pending = new Map();
  }
}

/** The line, naming the signals in registry order. */
function noticeLine(counts: Map<SignalName, number>, sinceMs: number | null, retentionMs: number): string {
  const since = sinceMs === null ? "" : ` since ${new Date(sinceMs).toISOString()}`;
  const parts = SIGNALS.flatMap((signal) => {
    const count = counts.get(signal.name) ?? 0;
    return count > 0 ? [signal.countWords(count)] : [];
  });
  return (
    `obsd: rejected ${parts.join(" and ")}${since} older than the retention window ` +
    `(--retention ${formatDuration(retentionMs)}); senders were told in the answer's partialSuccess ` +
    "(said at most once a minute)"
  );
}

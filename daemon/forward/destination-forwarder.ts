import { setTimeout as sleep } from "node:timers/promises";
import { destinationKey, type ForwardDestination } from "../../shared/forward-settings.js";
import type { ForwardProgress } from "../store/forward-outbox.js";
import type { DestinationStatus } from "./forward-protocol.js";
import { combine, type ForwardSignal } from "./otlp-encoding.js";
import type { OtlpSender } from "./otlp-sender.js";
import type { OutboxEntry, OutboxReader } from "./outbox-reader.js";
import { type BackoffPolicy, DEFAULT_BACKOFF, retryDelayMs } from "./retry-policy.js";

/** Outbox rows read per round, and the most body bytes: one round's batches stay bounded. */
export const BATCH_ROWS = 256;
export const BATCH_BYTES = 4 * 1024 * 1024;

export interface DestinationOptions {
  destination: ForwardDestination;
  reader: OutboxReader;
  sender: OtlpSender;
  /** Told after each round: the rows it covered were delivered or dropped (and counted). */
  onProgress: (progress: ForwardProgress) => void;
  onNotice: (line: string) => void;
  pollMs: number;
  backoff?: BackoffPolicy;
}

/**
 * Delivers the outbox to one destination, in commit order, at least once: a round reads the
 * next rows after the destination's position, sends them as one batch per signal, and only
 * when every batch was delivered (or refused for good, counted as dropped) reports the round's
 * last id as delivered. A retryable failure is retried, with backoff, until it succeeds or the
 * forwarder stops; so a crash or a restart sends a round again at worst, never skips one.
 */
export class DestinationForwarder {
  private readonly key: string;
  private throughId: number;
  /** The current round's counts: reported with its progress, then stored by the writer. */
  private pending = { sent: 0, retried: 0, dropped: 0 };
  private state: "ok" | "retrying" = "ok";
  private retryingSince: string | null = null;
  private lastError: string | null = null;
  private stopped = false;
  private readonly stopping = new AbortController();

  constructor(private readonly options: DestinationOptions) {
    this.key = destinationKey(options.destination);
    this.throughId = options.reader.destination(this.key)?.throughId ?? 0;
  }

  async run(): Promise<void> {
    while (!this.stopped) {
      const entries = this.options.reader.after(this.throughId, BATCH_ROWS, BATCH_BYTES);
      if (entries.length === 0) {
        await this.pause(this.options.pollMs);
        continue;
      }
      const progress = await this.deliverRound(entries);
      if (progress === null) return;
      this.throughId = progress.throughId;
      this.options.onProgress(progress);
    }
  }

  /** The round's progress, or null when stopped before it was all delivered. */
  private async deliverRound(entries: OutboxEntry[]): Promise<ForwardProgress | null> {
    const counts = { sent: 0, retried: 0, dropped: 0 };
    this.pending = counts;
    for (const [signal, group] of bySignal(entries)) {
      const records = group.reduce((sum, entry) => sum + entry.records, 0);
      let body: Buffer;
      try {
        body = combine(signal, this.options.destination.protocol, group);
      } catch (error) {
        // Stored, so it was accepted; what cannot be re-encoded is dropped and said, not retried.
        this.drop(counts, records, signal, `it could not be encoded (${(error as Error).message})`);
        continue;
      }
      const outcome = await this.deliver(signal, body, counts);
      if (outcome === "stopped") return null;
      if (outcome === "ok") counts.sent += records;
      else this.drop(counts, records, signal, outcome.reason);
    }
    const throughId = (entries.at(-1) as OutboxEntry).id;
    this.pending = { sent: 0, retried: 0, dropped: 0 };
    return { destination: this.key, throughId, ...counts };
  }

  /** Sends until delivered or refused for good; "stopped" when the forwarder stops meanwhile. */
  private async deliver(
    signal: ForwardSignal,
    body: Buffer,
    counts: { retried: number },
  ): Promise<"ok" | "stopped" | { reason: string }> {
    for (let attempt = 1; !this.stopped; attempt++) {
      const outcome = await this.options.sender.send(signal, body);
      if (outcome.kind === "ok") {
        this.state = "ok";
        this.retryingSince = null;
        return "ok";
      }
      if (outcome.kind === "permanent") {
        this.lastError = outcome.reason;
        return { reason: outcome.reason };
      }
      counts.retried++;
      this.lastError = outcome.reason;
      if (this.state !== "retrying") {
        this.state = "retrying";
        this.retryingSince = new Date().toISOString();
      }
      await this.pause(retryDelayMs(attempt, outcome.retryAfterMs, this.options.backoff ?? DEFAULT_BACKOFF));
    }
    return "stopped";
  }

  private drop(counts: { dropped: number }, records: number, signal: ForwardSignal, reason: string): void {
    counts.dropped += records;
    this.options.onNotice(
      `obsd: forwarding to ${this.options.destination.url} dropped ${records} ${recordWord(signal, records)}: ${reason}`,
    );
  }

  private async pause(ms: number): Promise<void> {
    try {
      await sleep(ms, undefined, { signal: this.stopping.signal });
    } catch {
      // Stopped.
    }
  }

  /**
   * State and counters for health: the stored counters (every run's reported rounds, and what
   * retention dropped) and the current round's, not reported yet. A round just reported shows
   * once the writer has committed it, a few milliseconds later.
   */
  status(nowNs: bigint): DestinationStatus {
    const stored = this.options.reader.destination(this.key);
    const lag = this.options.reader.lag(this.throughId);
    const { url, protocol } = this.options.destination;
    return {
      url,
      protocol,
      state: this.state,
      retryingSince: this.retryingSince,
      lastError: this.lastError,
      lagRecords: lag.records,
      lagSeconds: lag.oldestNs === null ? 0 : Math.max(0, Number((nowNs - lag.oldestNs) / 1_000_000n) / 1000),
      sent: (stored?.sent ?? 0) + this.pending.sent,
      retried: (stored?.retried ?? 0) + this.pending.retried,
      dropped: (stored?.dropped ?? 0) + this.pending.dropped,
    };
  }

  stop(): void {
    this.stopped = true;
    this.stopping.abort();
    this.options.sender.close();
  }
}

function bySignal(entries: OutboxEntry[]): Map<ForwardSignal, OutboxEntry[]> {
  const groups = new Map<ForwardSignal, OutboxEntry[]>();
  for (const entry of entries) {
    const group = groups.get(entry.signal);
    if (group) group.push(entry);
    else groups.set(entry.signal, [entry]);
  }
  return groups;
}

const WORDS: Record<ForwardSignal, [string, string]> = {
  traces: ["span", "spans"],
  logs: ["log record", "log records"],
  metrics: ["data point", "data points"],
};

function recordWord(signal: ForwardSignal, count: number): string {
  return WORDS[signal][count === 1 ? 0 : 1];
}

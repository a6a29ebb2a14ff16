import { setTimeout as sleep } from "node:timers/promises";
import { destinationKey, type ForwardDestination } from "../../shared/forward-settings.js";
import type { ForwardProgress } from "../store/forward-outbox.js";
import type { DestinationStatus } from "./forward-protocol.js";
import { encodeFor, type ForwardSignal, join } from "./otlp-encoding.js";
import type { OtlpSender } from "./otlp-sender.js";
import type { OutboxEntry, OutboxReader } from "./outbox-reader.js";
import { type BackoffPolicy, DEFAULT_BACKOFF, retryDelayMs, type SendOutcome } from "./retry-policy.js";

interface Encoded {
  id: number;
  records: number;
  part: Uint8Array | unknown[];
}

interface RoundCounts {
  sent: number;
  retried: number;
  dropped: number;
  /** Each row settled in the round: [id, records, 1 delivered or 0 dropped]. */
  rows: [number, number, 0 | 1][];
}

const noCounts = (): RoundCounts => ({ sent: 0, retried: 0, dropped: 0, rows: [] });

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
  private pending = noCounts();
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
      let entries: OutboxEntry[];
      try {
        entries = this.options.reader.after(this.throughId, BATCH_ROWS, BATCH_BYTES);
      } catch (error) {
        // The store could not be read just now (a checkpoint, a full disk): try again shortly.
        this.lastError = `reading the outbox: ${(error as Error).message}`;
        await this.pause(1_000);
        continue;
      }
      if (entries.length === 0) {
        await this.pause(this.options.pollMs);
        continue;
      }
      let progress: ForwardProgress | null;
      try {
        progress = await this.deliverRound(entries);
      } catch (error) {
        // Nothing of the round is reported: it is read and sent again (at least once).
        this.lastError = `forwarding failed: ${(error as Error).message}`;
        await this.pause(1_000);
        continue;
      }
      if (progress === null) return;
      this.throughId = progress.throughId;
      this.options.onProgress(progress);
    }
  }

  /** The round's progress, or null when stopped before it was all delivered. */
  private async deliverRound(entries: OutboxEntry[]): Promise<ForwardProgress | null> {
    const counts = noCounts();
    this.pending = counts;
    const { protocol } = this.options.destination;
    for (const [signal, group] of bySignal(entries)) {
      const encoded: Encoded[] = [];
      for (const entry of group) {
        try {
          encoded.push({ id: entry.id, records: entry.records, part: encodeFor(signal, protocol, entry) });
        } catch (error) {
          // Stored, so it was accepted; what cannot be re-encoded is dropped and said, not retried.
          this.drop(counts, [entry], signal, `it could not be encoded (${(error as Error).message})`);
        }
      }
      if ((await this.deliverParts(signal, encoded, counts)) === "stopped") return null;
    }
    const throughId = (entries.at(-1) as OutboxEntry).id;
    this.pending = noCounts();
    return { destination: this.key, throughId, retried: counts.retried, rows: counts.rows };
  }

  /**
   * Sends requests of one signal as one batch. A batch refused for good is split in halves and
   * each half sent again, so a refusal drops only the requests that draw it (one request too
   * large for the upstream, one it finds invalid), never the ones batched beside it.
   */
  private async deliverParts(
    signal: ForwardSignal,
    parts: Encoded[],
    counts: RoundCounts,
  ): Promise<"done" | "stopped"> {
    if (parts.length === 0) return "done";
    const records = parts.reduce((sum, part) => sum + part.records, 0);
    const body = join(
      signal,
      this.options.destination.protocol,
      parts.map((part) => part.part),
    );
    const outcome = await this.deliver(signal, body, counts);
    if (outcome === "stopped") return "stopped";
    if (outcome === "ok") {
      counts.sent += records;
      for (const part of parts) counts.rows.push([part.id, part.records, 1]);
      return "done";
    }
    if (parts.length === 1) {
      this.drop(counts, parts, signal, outcome.reason);
      return "done";
    }
    const half = Math.ceil(parts.length / 2);
    if ((await this.deliverParts(signal, parts.slice(0, half), counts)) === "stopped") return "stopped";
    return this.deliverParts(signal, parts.slice(half), counts);
  }

  /** Sends until delivered or refused for good; "stopped" when the forwarder stops meanwhile. */
  private async deliver(
    signal: ForwardSignal,
    body: Buffer,
    counts: RoundCounts,
  ): Promise<"ok" | "stopped" | { reason: string }> {
    for (let attempt = 1; !this.stopped; attempt++) {
      let outcome: SendOutcome;
      try {
        outcome = await this.options.sender.send(signal, body);
      } catch (error) {
        outcome = { kind: "retry", reason: (error as Error).message, retryAfterMs: null };
      }
      if (outcome.kind === "ok") {
        this.state = "ok";
        this.retryingSince = null;
        return "ok";
      }
      const reason = this.withoutSecrets(outcome.reason);
      this.lastError = reason;
      if (outcome.kind === "permanent") {
        // The upstream answered: it is up, and this batch is settled.
        this.state = "ok";
        this.retryingSince = null;
        return { reason };
      }
      counts.retried++;
      if (this.state !== "retrying") {
        this.state = "retrying";
        this.retryingSince = new Date().toISOString();
      }
      await this.pause(retryDelayMs(attempt, outcome.retryAfterMs, this.options.backoff ?? DEFAULT_BACKOFF));
    }
    return "stopped";
  }

  /** An upstream's words may echo a request header (an API key): its values never reach a log. */
  private withoutSecrets(reason: string): string {
    let text = reason;
    for (const [, value] of this.options.destination.headers) {
      if (value.length >= 4) text = text.split(value).join("***");
    }
    return text.length > 300 ? `${text.slice(0, 300)}…` : text;
  }

  private drop(
    counts: RoundCounts,
    rows: readonly { id: number; records: number }[],
    signal: ForwardSignal,
    reason: string,
  ): void {
    const records = rows.reduce((sum, row) => sum + row.records, 0);
    counts.dropped += records;
    for (const row of rows) counts.rows.push([row.id, row.records, 0]);
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

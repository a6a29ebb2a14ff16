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

/** A round in delivery: its counts, its last row, and its drops gathered for one line each. */
interface Round {
  counts: RoundCounts;
  lastId: number;
  drops: Map<string, { signal: ForwardSignal; reason: string; records: number }>;
}

type Delivery = "done" | "stopped" | "passed";

/** Timeouts after which a batch of several requests is split (one of them may be too large for the path). */
const SPLIT_AFTER_TIMEOUTS = 3;

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
    const round: Round = { counts, lastId: (entries.at(-1) as OutboxEntry).id, drops: new Map() };
    const { protocol } = this.options.destination;
    for (const [signal, group] of bySignal(entries)) {
      const encoded: Encoded[] = [];
      for (const entry of group) {
        try {
          encoded.push({ id: entry.id, records: entry.records, part: encodeFor(signal, protocol, entry) });
        } catch (error) {
          // Stored, so it was accepted; what cannot be re-encoded is dropped and said, not retried.
          this.drop(round, [entry], signal, `it could not be encoded (${(error as Error).message})`);
        }
      }
      const outcome = await this.deliverParts(signal, encoded, round);
      if (outcome === "stopped") return null;
      // Retention deleted the round's rows while they were being retried (and counted them as
      // dropped): what follows them is due, not these.
      if (outcome === "passed") break;
    }
    this.sayDrops(round);
    this.pending = noCounts();
    return { destination: this.key, throughId: round.lastId, retried: counts.retried, rows: counts.rows };
  }

  /**
   * Sends requests of one signal as one batch. A batch refused for a reason that may be one
   * request's own (too large, invalid), or that keeps timing out, is split in halves and each
   * half sent again, so only the requests that draw it are dropped, never the ones beside them.
   */
  private async deliverParts(signal: ForwardSignal, parts: Encoded[], round: Round): Promise<Delivery> {
    if (parts.length === 0) return "done";
    const records = parts.reduce((sum, part) => sum + part.records, 0);
    const body = join(
      signal,
      this.options.destination.protocol,
      parts.map((part) => part.part),
    );
    const outcome = await this.deliver(signal, body, round, parts.length > 1);
    if (outcome === "stopped" || outcome === "passed") return outcome;
    if (outcome === "ok") {
      round.counts.sent += records;
      for (const part of parts) round.counts.rows.push([part.id, part.records, 1]);
      return "done";
    }
    if (outcome.split && parts.length > 1) {
      const half = Math.ceil(parts.length / 2);
      const first = await this.deliverParts(signal, parts.slice(0, half), round);
      if (first !== "done") return first;
      return this.deliverParts(signal, parts.slice(half), round);
    }
    this.drop(round, parts, signal, outcome.reason);
    return "done";
  }

  /**
   * Sends until delivered, refused for good (`split` when halves may fare better), or given up
   * after SPLIT_AFTER_TIMEOUTS timeouts of a batch that can be split; "stopped" when the
   * forwarder stops meanwhile, "passed" when retention has deleted the round meanwhile.
   */
  private async deliver(
    signal: ForwardSignal,
    body: Buffer,
    round: Round,
    splittable: boolean,
  ): Promise<"ok" | "stopped" | "passed" | { reason: string; split: boolean }> {
    let timeouts = 0;
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
        return { reason, split: outcome.perRequest };
      }
      round.counts.retried++;
      if (this.state !== "retrying") {
        this.state = "retrying";
        this.retryingSince = new Date().toISOString();
      }
      if (outcome.timedOut) timeouts++;
      if (splittable && timeouts >= SPLIT_AFTER_TIMEOUTS) return { reason, split: true };
      if ((this.options.reader.destination(this.key)?.throughId ?? 0) >= round.lastId) return "passed";
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
    round: Round,
    rows: readonly { id: number; records: number }[],
    signal: ForwardSignal,
    reason: string,
  ): void {
    const records = rows.reduce((sum, row) => sum + row.records, 0);
    round.counts.dropped += records;
    for (const row of rows) round.counts.rows.push([row.id, row.records, 0]);
    const key = `${signal}\u0000${reason}`;
    const said = round.drops.get(key) ?? { signal, reason, records: 0 };
    said.records += records;
    round.drops.set(key, said);
  }

  /** One log line per signal and reason of a round's drops, however many requests they were. */
  private sayDrops(round: Round): void {
    for (const { signal, reason, records } of round.drops.values()) {
      this.options.onNotice(
        `obsd: forwarding to ${this.options.destination.url} dropped ${records} ${recordWord(signal, records)}: ${reason}`,
      );
    }
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

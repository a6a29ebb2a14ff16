import { MessageChannel, type MessagePort, type ResourceLimits, Worker } from "node:worker_threads";
import { TooManyValuesError } from "../otlp/decode-allowance.js";
import type { WireFormat } from "../otlp/decode-request.js";
import { PayloadError } from "../otlp/payload-error.js";
import type { RecordCounts, SignalName } from "../signals/registry.js";
import type { ForwardProgress } from "../store/forward-outbox.js";
import { StorageError, StoreLostError, StoreOpenError, StoreUnavailableError } from "../store/store-errors.js";
import type { WriterOptions, WriterReply, WriterRequest } from "../store/writer-protocol.js";
import { BodyBudget } from "./body-budget.js";
import type { DecodeReply, DecodeRequest } from "./decode-protocol.js";
import { type IngestLimits, ingestLimits, requestCost, reservedCost } from "./ingest-limits.js";
import { type Rejected, RejectionNotice, rejectedMessage } from "./rejected-records.js";
import { WriteStatus, type WriteStatusChange } from "./write-status.js";

export interface StoreReady {
  schemaVersion: number;
  migrated: number[];
  sqliteVersion: string;
}

export interface IngestResult {
  /** Distinct records kept: stored now or already stored (a record sent twice counts once). */
  accepted: number;
  /** Records that were new (the rest had been stored before). */
  inserted: number;
  /** Records not stored because retention would delete them at once, and why; null when none. */
  rejected: Rejected | null;
}

/**
 * A decoder that stops (out of memory on a pathological body, or a bug) is replaced, up to
 * this many times within DECODER_RESTART_WINDOW_MS; past that, writes fail until a restart.
 */
const DECODER_RESTARTS = 3;
const DECODER_RESTART_WINDOW_MS = 60_000;

interface Pending {
  /** For the words of its answer. */
  signal: SignalName;
  /** Told how many values the body decoded to, once the decoder has handed it on. */
  decoded(values: number): void;
  resolve(result: IngestResult): void;
  reject(error: Error): void;
}

/**
 * Data flows one way: main thread (HTTP) -> decoder thread -> writer thread, and the writer
 * answers the main thread once the transaction has committed. Bodies are transferred, not
 * copied, and decoded batches never pass through the main thread.
 */
export class IngestPipeline {
  private readonly writer: Worker;
  private decoder: Worker;
  private readonly workerLimits: ResourceLimits;
  /** When the decoder was lost, most recent last (DECODER_RESTARTS). */
  private decoderLosses: number[] = [];
  /** The current decoder's port's number on the writer: 0, then one more per replacement. */
  private decoderPort = 0;
  /** Why the current decoder is being stopped, when obsd stops it (replaceDecoder). */
  private stopping: { decoder: Worker; reason: string } | null = null;
  private readonly pending = new Map<number, Pending>();
  /** Readers waiting for the writer to write what it holds (`writeHeld`), by request id. */
  private readonly heldWrites = new Map<number, () => void>();
  /** The last failure to write them, said once until it changes. */
  private heldWriteError: string | null = null;
  private nextId = 1;
  private readonly budget: BodyBudget;
  private readonly limits: IngestLimits;
  private readonly retentionMs: number;
  private readonly rejections: RejectionNotice;
  /** Whether accepted requests go to the forwarding outbox. */
  private readonly forwarding: boolean;
  private failure: Error | null = null;
  /** Why new requests are refused while those in flight are still stored (`refuseWrites`). */
  private refusal: StoreUnavailableError | null = null;
  private closing: Promise<void> | null = null;
  readonly ready: Promise<StoreReady>;
  /** Rows retention deleted, per signal's records. */
  onTrimmed: (counts: RecordCounts) => void = () => {};
  /** Whether writes succeed; changes are also passed to `onWriteStatusChange`. */
  readonly writes = new WriteStatus();
  onWriteStatusChange: (change: WriteStatusChange) => void = () => {};
  /** Lines for the collector's log that are not write status changes (rejected old records). */
  onNotice: (line: string) => void = () => {};
  /**
   * Told once when the writer thread dies while open: nothing restarts it, so the collector must
   * stop (its 503s are true only because the next request finds no collector, or a new one).
   */
  onWriterLost: (error: Error) => void = () => {};

  /** `maxBodyBytes`: the largest body the HTTP side accepts; the memory limits follow from it. */
  constructor(options: WriterOptions, maxBodyBytes: number) {
    const limits = ingestLimits(maxBodyBytes);
    this.limits = limits;
    this.forwarding = (options.forwardDestinations ?? []).length > 0;
    this.budget = new BodyBudget(limits.budgetUnits);
    this.workerLimits = limits.worker;
    this.retentionMs = options.retention.maxAgeMs;
    this.rejections = new RejectionNotice(this.retentionMs, (line) => this.onNotice(line));
    const channel = new MessageChannel();
    // The collector starts with its pipeline: series started before this sent counts it never saw grow.
    const collectorStartNs = BigInt(Date.now()) * 1_000_000n;
    this.writer = new Worker(new URL("../store/writer-worker.js", import.meta.url), {
      // The writer decides whether a new series' first point counts whole by this time (metric-rollup.ts).
      workerData: { options, requests: channel.port2, collectorStartNs },
      transferList: [channel.port2],
      resourceLimits: limits.worker,
    });
    this.decoder = this.startDecoder(channel.port1);
    this.ready = new Promise((resolve, reject) => {
      this.writer.on("message", (reply: WriterReply) => {
        if (reply.type === "ready") {
          resolve({ schemaVersion: reply.schemaVersion, migrated: reply.migrated, sqliteVersion: reply.sqliteVersion });
        } else if (reply.type === "fatal") {
          reject(new StoreOpenError(reply.message, reply.kind));
        } else {
          this.onWriterReply(reply);
        }
      });
      this.writer.on("error", (error) => {
        this.writerLost(new StoreUnavailableError(`the writer stopped: ${error.message}`));
        reject(error);
      });
      this.writer.on("exit", (code) => {
        const error = new StoreUnavailableError(`the writer exited (code ${code})`);
        this.writerLost(error);
        reject(error);
      });
    });
  }

  /** Starts a decoder thread that hands its batches to the writer over `toWriter`. */
  private startDecoder(toWriter: MessagePort): Worker {
    const decoder = new Worker(new URL("./decode-worker.js", import.meta.url), {
      workerData: { writer: toWriter, forward: this.forwarding },
      transferList: [toWriter],
      resourceLimits: this.workerLimits,
    });
    decoder.on("message", (reply: DecodeReply) => this.onDecoderReply(reply));
    decoder.on("error", (error) => this.onDecoderLost(decoder, error.message));
    decoder.on("exit", (code) =>
      this.onDecoderLost(
        decoder,
        this.stopping?.decoder === decoder ? this.stopping.reason : `it exited (code ${code})`,
      ),
    );
    return decoder;
  }

  /**
   * Stops the decoder whose port's batches the writer could not restore (SignalModule.crossing):
   * its memory of what the writer has is wrong, and stays wrong until both sides start afresh.
   * Its exit replaces it as any decoder's loss does, and counts towards giving up.
   */
  private replaceDecoder(port: number, reason: string): void {
    if (port !== this.decoderPort || this.stopping?.decoder === this.decoder) return;
    this.stopping = { decoder: this.decoder, reason };
    void this.decoder.terminate();
  }

  /**
   * Every pending request is answered with a StoreUnavailableError (a retry reaches the new
   * decoder), or once it keeps stopping a StorageError (permanent until a restart): those still in the decoder will never
   * reach the writer. Some already handed to the writer may still be committed; their clients
   * see a failure, and a retry is stored once (writes are idempotent), so nothing acknowledged
   * is lost. Then a new decoder takes over, unless it keeps stopping.
   */
  private onDecoderLost(decoder: Worker, reason: string): void {
    if (decoder !== this.decoder || this.closing || this.failure) return;
    const now = Date.now();
    this.decoderLosses = [...this.decoderLosses.filter((at) => now - at < DECODER_RESTART_WINDOW_MS), now];
    if (this.decoderLosses.length > DECODER_RESTARTS) {
      this.fail(new StorageError(`the decoder stopped: ${reason}`));
      return;
    }
    const error = new StoreUnavailableError(`the decoder stopped: ${reason}`);
    this.noteChange(this.writes.failed(error.message, new Date()));
    for (const pending of this.pending.values()) pending.reject(error);
    this.pending.clear();
    const channel = new MessageChannel();
    this.writer.postMessage({ type: "decoder", requests: channel.port2 } satisfies WriterRequest, [channel.port2]);
    this.decoderPort++;
    this.decoder = this.startDecoder(channel.port1);
  }

  private settle(id: number, outcome: IngestResult | Error): void {
    const pending = this.pending.get(id);
    if (!pending) return;
    this.pending.delete(id);
    if (outcome instanceof Error) pending.reject(outcome);
    else pending.resolve(outcome);
  }

  private onDecoderReply(reply: DecodeReply): void {
    if (reply.type === "decoded") this.pending.get(reply.id)?.decoded(reply.values);
    else if (reply.type === "empty") this.settle(reply.id, { accepted: 0, inserted: 0, rejected: null });
    else if (reply.type === "invalid") this.settle(reply.id, new PayloadError(reply.message));
    else if (reply.type === "too-many-values") this.settle(reply.id, new TooManyValuesError(reply.limit));
    else this.settle(reply.id, new Error(reply.message));
  }

  private onWriterReply(reply: WriterReply): void {
    if (reply.type === "written") {
      // A write in flight when writes were refused does not make them look fine again.
      if (!this.refusal) this.noteChange(this.writes.succeeded());
      for (const write of reply.writes) {
        this.settle(write.id, {
          accepted: write.accepted,
          inserted: write.inserted,
          rejected: this.rejectedOf(write.id, write.rejected, write.cutoffNs, write.untimed ?? 0),
        });
      }
    } else if (reply.type === "failed") {
      if (reply.brokenCrossing !== undefined) this.replaceDecoder(reply.brokenCrossing, reply.message);
      this.noteChange(this.writes.failed(reply.message, new Date()));
      this.settle(
        reply.id,
        reply.transient ? new StoreUnavailableError(reply.message) : new StorageError(reply.message),
      );
    } else if (reply.type === "lost") {
      this.fail(new StoreLostError(reply.message));
    } else if (reply.type === "trimmed") {
      this.onTrimmed(reply.counts);
    } else if (reply.type === "heldWritten") {
      this.heldWrites.get(reply.id)?.();
      this.heldWrites.delete(reply.id);
      // Said once per cause: every metric query asks, and each would fail alike.
      if (reply.error !== undefined && reply.error !== this.heldWriteError) {
        this.onNotice(`obsd: metric answers may lack the newest minute, which could not be written: ${reply.error}`);
      }
      this.heldWriteError = reply.error ?? null;
    }
  }

  private rejectedOf(id: number, count: number, cutoffNs: bigint, untimed: number): Rejected | null {
    if (count === 0) return null;
    const signal = this.pending.get(id)?.signal ?? "traces";
    // The log line is about retention's window: records with no time are the sender's to fix.
    if (count > untimed) this.rejections.note(signal, count - untimed);
    return { count, message: rejectedMessage(signal, count, this.retentionMs, cutoffNs, untimed) };
  }

  private noteChange(change: WriteStatusChange | null): void {
    if (change) this.onWriteStatusChange(change);
  }

  /**
   * Transient for the client only because the collector stops on it (onWriterLost): a retry
   * reaches a restarted collector, or none, which exporters retry too.
   */
  private writerLost(error: StoreUnavailableError): void {
    const first = !this.failure && !this.closing;
    this.fail(error);
    if (first) this.onWriterLost(error);
  }

  private fail(error: Error): void {
    if (!this.failure && !this.closing) this.noteChange(this.writes.failed(error.message, new Date()));
    this.failure ??= error;
    for (const pending of this.pending.values()) pending.reject(error);
    this.pending.clear();
    this.settleHeldWrites();
  }

  private settleHeldWrites(): void {
    for (const settle of this.heldWrites.values()) settle();
    this.heldWrites.clear();
  }

  /**
   * Resolves once the writer has written what it holds across transactions (the open minute of
   * metric series, metric-writer.ts): a reader that waits for it reads every point acknowledged
   * before it asked. Never rejects: when the writer cannot write it (or is gone), the reader
   * reads what is stored.
   */
  writeHeld(): Promise<void> {
    if (this.failure || this.closing) return Promise.resolve();
    return new Promise((resolve) => {
      const id = this.nextId++;
      this.heldWrites.set(id, resolve);
      this.writer.postMessage({ type: "writeHeld", id } satisfies WriterRequest);
    });
  }

  /** Records how far forwarding destinations have delivered (the writer persists it). */
  forwarded(progress: ForwardProgress[]): void {
    if (this.failure || this.closing || progress.length === 0) return;
    this.writer.postMessage({ type: "forwarded", progress } satisfies WriterRequest);
  }

  /**
   * Decodes and stores one request body. Resolves once the records are committed; rejects with
   * PayloadError (bad input), TooManyValuesError (more than one request may hold) or
   * StorageError (nothing was stored). Waits first while the pipeline holds its budget of other
   * requests (ingest-limits.ts): charged the most its body could cost until decoded, then what
   * it does. `body` must own its ArrayBuffer: it is transferred to the decoder.
   */
  async ingest(signal: SignalName, format: WireFormat, body: Buffer, receivedNs: bigint): Promise<IngestResult> {
    this.assertOpen();
    // Read now: once the body is transferred to the decoder its length here is 0.
    const bytes = body.length;
    if (bytes === 0) return { accepted: 0, inserted: 0, rejected: null };
    let held = reservedCost(bytes, this.limits);
    await this.budget.admit(held);
    const decoded = (values: number) => {
      const cost = requestCost(bytes, values);
      this.budget.resize(held, cost);
      held = cost;
    };
    try {
      // The pipeline may have failed or begun to close while this request waited.
      this.assertOpen();
      return await this.decodeAndWrite(signal, format, body, receivedNs, decoded);
    } finally {
      this.budget.release(held);
    }
  }

  private assertOpen(): void {
    if (this.failure) throw this.failure;
    if (this.refusal) throw this.refusal;
    if (this.closing) throw new StoreUnavailableError("the collector is stopping");
  }

  /**
   * For a collector whose store lock was lost, so that another collector may own the file now:
   * every request from now on, and those already decoding or queued, is refused as one to retry
   * (HTTP 503, gRPC UNAVAILABLE; nothing unacknowledged is lost, its sender sends it again), and
   * the writer thread writes nothing more, not even at `close` what it holds: rows it wrote then
   * (its journal emptied, its held mark cleared) would undo the new owner's.
   */
  refuseWrites(reason: string): void {
    if (this.refusal || this.failure || this.closing) return;
    this.refusal = new StoreUnavailableError(reason);
    this.writer.postMessage({ type: "lockLost", reason } satisfies WriterRequest);
    this.noteChange(this.writes.failed(reason, new Date()));
  }

  private decodeAndWrite(
    signal: SignalName,
    format: WireFormat,
    body: Buffer,
    receivedNs: bigint,
    decoded: (values: number) => void,
  ): Promise<IngestResult> {
    const id = this.nextId++;
    const buffer =
      body.byteOffset === 0 && body.byteLength === body.buffer.byteLength
        ? body.buffer
        : body.buffer.slice(body.byteOffset, body.byteOffset + body.byteLength);
    return new Promise((resolve, reject) => {
      this.pending.set(id, { signal, decoded, resolve, reject });
      const request: DecodeRequest = {
        id,
        maxValues: this.limits.maxDecodedValues,
        signal,
        format,
        body: buffer as ArrayBuffer,
        receivedNs,
      };
      this.decoder.postMessage(request, [buffer as ArrayBuffer]);
    });
  }

  /**
   * Commits what is queued, closes the database and ends both threads. Rejects with the
   * StoreLostError when the database file was deleted or replaced: what was stored since is
   * gone, and the collector's exit code must say so.
   */
  close(): Promise<void> {
    this.closing ??= (async () => {
      this.rejections.stop();
      await this.decoder.terminate();
      if (this.failure) {
        await this.writer.terminate();
        if (this.failure instanceof StoreLostError) throw this.failure;
        return;
      }
      await new Promise<void>((resolve) => {
        this.writer.on("message", (reply: WriterReply) => {
          if (reply.type === "closed") resolve();
        });
        this.writer.on("exit", () => resolve());
        this.writer.postMessage({ type: "close" } satisfies WriterRequest);
      });
      // The writer answered those asked before "close" first; any left are answered by the close itself.
      this.settleHeldWrites();
    })();
    return this.closing;
  }
}

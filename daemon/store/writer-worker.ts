/**
 * The writer thread: owns the only write connection. Requests that queue up or arrive while a
 * transaction runs are committed together (group commit), and each request is answered only
 * after its transaction committed.
 */
import { writeSync } from "node:fs";
import { type MessagePort, parentPort, receiveMessageOnPort, workerData } from "node:worker_threads";
import type Database from "better-sqlite3";
import {
  storeUpgradeNotice,
  storeUpgradeProgressNotice,
  storeUpgradeStepNotice,
  UPGRADE_PROGRESS_EVERY_MS,
} from "../../shared/store-upgrade.js";
import { nowNs } from "../../shared/time.js";
import { noRecords, SIGNALS, signalNamed } from "../signals/registry.js";
import type { CrossingReceiver } from "../signals/signal-module.js";
import { openWriteConnection } from "./connection.js";
import { ForwardOutbox } from "./forward-outbox.js";
import type { RecordTally } from "./kept-records.js";
import { PostingPacker } from "./posting-packer.js";
import { Retention } from "./retention.js";
import { SCHEMA_VERSION, StoreVersionError } from "./schema.js";
import { StoreFileWatch } from "./store-file-watch.js";
import { TelemetryWriter } from "./telemetry-writer.js";
import { trimSteps } from "./trim-steps.js";
import { WalCheckpointer } from "./wal-checkpointer.js";
import { WalGuard } from "./wal-guard.js";
import { describeWriteFailure, isTransientWriteFailure } from "./write-failure.js";
import type { WriteRequest, WriterOptions, WriterReply, WriterRequest } from "./writer-protocol.js";

if (!parentPort) throw new Error("writer-worker must run as a worker thread");
const port = parentPort;
const { options } = workerData as { options: WriterOptions };
/** The current decoder's port; earlier decoders' ports stay open until close, for what they sent. */
let requests = (workerData as { requests: MessagePort }).requests;

/**
 * What the writer remembers of one decoder port's batches, per signal (SignalModule.crossing),
 * and the port's number: 0 for the first, then one more per `decoder` request.
 */
interface Receivers {
  readonly port: number;
  readonly bySignal: ReadonlyMap<string, CrossingReceiver<never> | undefined>;
}

function receiversForPort(port: number): Receivers {
  return { port, bySignal: new Map(SIGNALS.map((signal) => [signal.name, signal.crossing?.receiver()])) };
}

/** The current decoder port's receivers. */
let receivers = receiversForPort(0);

function send(reply: WriterReply): void {
  port.postMessage(reply);
}

let db: Database.Database;
let migrated: number[] = [];
try {
  // Straight to the file descriptor: a worker's console.error reaches stderr only when its
  // event loop runs, and the upgrade holds this thread until it ends, so its lines would all
  // come after it.
  // A notice never fails the upgrade: a full or closed pipe (EAGAIN, EPIPE) loses the line only.
  const say = (line: string) => {
    try {
      writeSync(2, `${line}\n`);
    } catch {}
  };
  ({ db, migrated } = openWriteConnection(options.dbPath, options.retention.maxBytes, {
    onUpgrade: (from, to) => say(storeUpgradeNotice(options.dbPath, from, to)),
    onStep: (migration, ms) => say(storeUpgradeStepNotice(migration.version, migration.description, ms)),
    onProgress: (() => {
      // A line every few seconds, not every chunk.
      let saidAt = Date.now();
      return (migration, done, total) => {
        if (Date.now() - saidAt < UPGRADE_PROGRESS_EVERY_MS) return;
        saidAt = Date.now();
        say(storeUpgradeProgressNotice(migration.version, done, total, migration.progressUnit));
      };
    })(),
  }));
} catch (error) {
  send({
    type: "fatal",
    kind: error instanceof StoreVersionError ? "version" : "open",
    message: (error as Error).message,
  });
  process.exit(0);
}

const writer = new TelemetryWriter(
  db,
  (workerData as { collectorStartNs: bigint }).collectorStartNs,
  options.retention.maxBytes,
);
const destinations = options.forwardDestinations ?? [];
// Made while forwarding is off too: what an earlier run left waiting is kept for the
// destination's return, and retention trims it like the telemetry (counted as dropped).
const outbox = new ForwardOutbox(db, destinations, (line) => console.error(line));
const forwarding = destinations.length > 0;
const retention = new Retention(db, options.retention, [outbox]);
// Before retention first runs: what a writer that stopped held is stored again first (its
// points are in the journal only, metric-writer.ts).
try {
  writer.writeHeld();
} catch (error) {
  console.error(`obsd: ${describeWriteFailure(error, options.dbPath)}`);
}
const packer = new PostingPacker(db, writer.hashedKeys);
const walGuard = new WalGuard(db, options.dbPath);
// Read before the checkpointer moves SQLite's own threshold: the log's usual bound, in pages.
const walThresholdPages = Number(db.pragma("wal_autocheckpoint", { simple: true }));
const checkpointer = new WalCheckpointer(db, options.dbPath, (line) => console.error(`obsd: ${line}`));
const fileWatch = new StoreFileWatch(options.dbPath);
/**
 * Why this thread may no longer write the file: it is no longer the one opened
 * (store-file-watch.ts), or the collector lost its lock on it (another may own it now).
 */
let lost: string | null = null;
/** Whether `lost` is the lock's: a request refused for it is one to send again (to its new owner). */
let lostLock = false;
const queue: WriteRequest[] = [];
let flushScheduled = false;
let closing = false;
let trimming = false;
let packing = false;
/** After a failure, packing waits until then (ms) to try again: a full disk may have room by then. */
let packingPausedUntil = 0;
const PACKING_PAUSE_MS = 60_000;

/** Records a request carries, repeats and all: what group commit sizes transactions by. */
function recordCount(request: WriteRequest): number {
  return signalNamed(request.signal).count(request.batch);
}

/**
 * A request's records are stored this many at a time, so the writer holds the records of one
 * slice, not of a whole large request (a 16 MiB body of small spans is half a million records,
 * each costing heap while unpacked). Requests of this size or smaller are one slice.
 */
const SLICE_RECORDS = 4096;

/**
 * Stores a request's records but repeats and those retention would delete at once
 * (kept-records.ts), by its signal's module.
 */
function apply(request: WriteRequest): Written {
  const cutoffNs = retention.ageCutoffNs(nowNs());
  const context = { cutoffNs, receivedNs: request.receivedNs, sliceRecords: SLICE_RECORDS };
  const signal = signalNamed(request.signal);
  const tally = signal.store(writer.part(signal.records), request.batch, context);
  // In the same transaction as the records: what is acknowledged can always still be forwarded.
  // A request none of whose records was kept (all older than retention) is not forwarded.
  if (forwarding && request.forward !== undefined && tally.accepted > 0) {
    const { format, body } = request.forward;
    outbox.append(request.signal, format, signal.count(request.batch), request.receivedNs, body);
  }
  return { ...tally, cutoffNs };
}

/** What the answer to a committed request carries. */
type Written = RecordTally & { cutoffNs: bigint };

/** Whether the path still names the opened file; the first time it does not, tells the main thread. */
function fileIntact(): boolean {
  if (lost !== null) return false;
  lost = fileWatch.problem();
  if (lost === null) return true;
  // A checkpoint thread started now would open whatever file the path names.
  void checkpointer.stop();
  send({ type: "lost", message: lost });
  return false;
}

/**
 * Answers committed requests, in one message: acknowledged only while the committed file is the
 * one the path names (checked once for them all, after their commit).
 */
function acknowledge(requests: WriteRequest[], results: Written[]): void {
  if (!fileIntact()) {
    for (const request of requests)
      send({ type: "failed", id: request.id, message: lost as string, ...(lostLock ? { transient: true } : {}) });
    return;
  }
  send({ type: "written", writes: requests.map((request, i) => ({ id: request.id, ...(results[i] as Written) })) });
}

/**
 * Requests that arrive while a transaction runs join it, up to this many records in all. A
 * commit has a fixed cost (the pages the random-keyed indexes touch, the rollup rows, the log
 * frames), so with 8 requests in flight a commit of all of them costs less per span than two
 * of 4, which is where group commit alone settles (docs/perf-history/2026-11.md). The cap bounds how
 * long the first request of a transaction waits for its answer, and how much the transaction
 * holds (a queue that built up during a long checkpoint is committed in several).
 */
const MAX_JOINED_RECORDS = 8192;

/** Applies `group`, then whatever arrives meanwhile (added to `group`); returns each one's tally. */
function applyJoining(group: WriteRequest[]): Written[] {
  const results = group.map(apply);
  let records = group.reduce((sum, request) => sum + recordCount(request), 0);
  while (records < MAX_JOINED_RECORDS) {
    const arrived = receiveMessageOnPort(requests);
    if (!arrived) break;
    const request = arrived.message as WriteRequest;
    if (!received(request, receivers)) continue;
    group.push(request);
    results.push(apply(request));
    records += recordCount(request);
  }
  return results;
}

function failedReply(id: number, error: unknown): WriterReply {
  const transient = isTransientWriteFailure(error);
  return { type: "failed", id, message: describeWriteFailure(error, options.dbPath), transient };
}

/** Commits a group (and what joins it) in one transaction; on failure, isolates the failing requests. */
function commit(group: WriteRequest[]): void {
  try {
    const results = writer.transaction(() => applyJoining(group));
    acknowledge(group, results);
    return;
  } catch (error) {
    outbox.forget();
    if (group.length === 1) {
      send(failedReply(group[0]!.id, error));
      return;
    }
  }
  // Retry one by one so a single failing request cannot fail the others in its group.
  for (const request of group) {
    try {
      const result = writer.transaction(() => apply(request));
      acknowledge([request], [result]);
    } catch (error) {
      outbox.forget();
      send(failedReply(request.id, error));
    }
  }
}

/** The queued requests a transaction starts with: at least one, and up to MAX_JOINED_RECORDS. */
function takeGroup(): WriteRequest[] {
  let records = 0;
  let count = 0;
  while (count < queue.length && (count === 0 || records < MAX_JOINED_RECORDS)) {
    records += recordCount(queue[count] as WriteRequest);
    count++;
  }
  return queue.splice(0, count);
}

function flush(): void {
  flushScheduled = false;
  const group = takeGroup();
  if (group.length > 0 && lost !== null) {
    // Into a file no one will open again: not written at all.
    for (const request of group)
      send({ type: "failed", id: request.id, message: lost, ...(lostLock ? { transient: true } : {}) });
  } else if (group.length > 0) {
    commit(group);
    checkpointer.afterCommit();
    try {
      // Not while the thread copies: a second checkpoint would be refused at once, and the
      // guard would not try again for a second.
      if (!checkpointer.copying) walGuard.afterCommit(Date.now());
    } catch {
      // A failed checkpoint loses nothing; the log stays as it is and the next commit says why.
    }
  }
  if (retention.policy.maxBytes > 0 && retention.fileBytes() > retention.policy.maxBytes * 0.95) {
    void trim();
  }
  void pack();
  if (queue.length > 0) scheduleFlush();
  else if (closing) void finish();
}

function scheduleFlush(): void {
  if (!flushScheduled) {
    flushScheduled = true;
    setImmediate(flush);
  }
}

/** Trims in batches, yielding between them so queued writes are committed in between. */
async function trim(): Promise<void> {
  if (trimming || closing || lost !== null) return;
  trimming = true;
  const total = noRecords();
  let deleted = 0;
  try {
    const steps = trimSteps({
      settleWriter: () => writer.writeForRetention(),
      byAge: () => retention.trimByAge(nowNs()),
      bySize: () => retention.trimBySize(nowNs()),
      onWriterError: (error) =>
        console.error(`obsd: retention: the metric writer could not write what it holds: ${(error as Error).message}`),
      onPassError: (error) => console.error(`obsd: retention failed: ${(error as Error).message}`),
    });
    for (const step of steps) {
      while (!closing && lost === null) {
        const result = step();
        let stepDeleted = 0;
        for (const { records } of SIGNALS) {
          total[records] += result[records];
          stepDeleted += result[records];
        }
        deleted += stepDeleted;
        // The outbox's rows are no signal's records, but trimming goes on while they are deleted.
        const others = retention.takeOthersDeleted();
        if (stepDeleted === 0 && others === 0) break;
        checkpointer.afterCommit();
        await new Promise((resolve) => setImmediate(resolve));
      }
    }
    await releaseFreePages();
  } catch (error) {
    console.error(`obsd: retention failed: ${(error as Error).message}`);
  } finally {
    trimming = false;
  }
  if (deleted > 0) send({ type: "trimmed", counts: total });
}

/**
 * Hands the free pages of a file over its cap back to the filesystem, half the log's usual
 * bound at a time (each page moved goes through the log), the log checkpointed between chunks
 * and queued writes committed: so the log stays near its bound while a lowered cap frees much
 * of the file, and a nearly full disk has room for it. A chunk waits while the checkpoint
 * thread copies, which would refuse the writer's own checkpoint.
 */
async function releaseFreePages(): Promise<void> {
  const pages = Math.max(1, Math.floor(walThresholdPages / 2));
  while (!closing && retention.releaseFreePages(pages)) {
    while (checkpointer.copying && !closing) await new Promise((resolve) => setTimeout(resolve, 5));
    try {
      db.pragma("wal_checkpoint(PASSIVE)");
      walGuard.afterCommit(Date.now());
    } catch {
      // A failed checkpoint loses nothing: the frames stay in the log for the next one.
    }
    await new Promise((resolve) => setImmediate(resolve));
  }
  if (!closing) checkpointer.afterCommit();
}

/**
 * Packs full posting buckets (posting-packer.ts), one transaction each, yielding between them
 * so queued writes are committed in between. A store upgraded with many full buckets is packed
 * in the background this way, as is each bucket ingestion fills.
 */
async function pack(): Promise<void> {
  if (packing || closing || lost !== null || Date.now() < packingPausedUntil) return;
  packing = true;
  try {
    while (!closing && packer.packNext()) {
      checkpointer.afterCommit();
      await new Promise((resolve) => setImmediate(resolve));
    }
  } catch (error) {
    // Nothing is lost: the bucket's postings stay as they were (in forms readers read), and
    // the packer moves on past it (posting-packer.ts).
    packingPausedUntil = Date.now() + PACKING_PAUSE_MS;
    console.error(`obsd: packing postings failed, trying again in a minute: ${(error as Error).message}`);
  } finally {
    packing = false;
  }
}

/**
 * Writes what the writer holds across transactions, so that what a reader reads or a later
 * obsd opens is whole. A failure loses nothing: the points are stored, and the next writer
 * refolds what was held from them.
 */
function writeHeld(): string | undefined {
  if (lost !== null) return lost;
  try {
    writer.writeHeld();
    return undefined;
  } catch (error) {
    return describeWriteFailure(error, options.dbPath);
  }
}

let finishing = false;

async function finish(): Promise<void> {
  if (finishing) return;
  finishing = true;
  clearInterval(timer);
  clearInterval(fileTimer);
  const error = writeHeld();
  if (error !== undefined && lost === null) console.error(`obsd: ${error}`);
  // A copy the thread is making would have SQLite refuse the truncating checkpoint below.
  await checkpointer.stop();
  try {
    db.pragma("wal_checkpoint(TRUNCATE)");
  } finally {
    db.close();
  }
  send({ type: "closed" });
  port.close();
}

const timer = setInterval(() => {
  void trim();
  void pack();
}, options.retentionIntervalMs);
// Also checked while no writes come, so health tells of a deleted file before a write is refused.
const FILE_CHECK_INTERVAL_MS = 1000;
const fileTimer = setInterval(fileIntact, FILE_CHECK_INTERVAL_MS);

/**
 * Whether a write request taken from a decoder's port (with that port's receivers) can be
 * stored: a batch whose receiver throws is answered as failed here, naming the port so that its
 * decoder is replaced, and goes no further.
 */
function received(request: WriteRequest, from: Receivers | null): boolean {
  try {
    from?.bySignal.get(request.signal)?.arrive(request.batch as never);
    return true;
  } catch (error) {
    send({
      type: "failed",
      id: request.id,
      message: `obsd could not take the request: ${(error as Error).message}`,
      transient: true,
      brokenCrossing: from?.port,
    });
    return false;
  }
}

function onWriteRequest(message: WriteRequest, from: Receivers | null): void {
  if (!received(message, from)) return;
  queue.push(message);
  scheduleFlush();
}

port.on("message", (message: WriterRequest) => {
  if (message.type === "close") {
    closing = true;
    requests.close();
    if (queue.length === 0 && !flushScheduled) void finish();
    return;
  }
  if (message.type === "lockLost") {
    if (lost === null) {
      lost = message.reason;
      lostLock = true;
      void checkpointer.stop();
    }
    return;
  }
  if (message.type === "writeHeld") {
    // Between transactions: requests queued and not yet committed are not acknowledged, so
    // no reader can be waiting for them.
    const error = writeHeld();
    checkpointer.afterCommit();
    send(
      error === undefined ? { type: "heldWritten", id: message.id } : { type: "heldWritten", id: message.id, error },
    );
    return;
  }
  if (message.type === "forwarded") {
    try {
      outbox.applyProgress(message.progress);
      checkpointer.afterCommit();
    } catch (error) {
      // Not recorded: the forwarder sends those rows again after a restart (at least once).
      console.error(`obsd: could not record forwarding progress: ${(error as Error).message}`);
    }
    return;
  }
  if (message.type === "decoder") {
    // The decoder before this one has stopped (the main thread replaces a decoder once it is
    // gone), so everything it posted is on its port: queued now, its port closed, its
    // receivers' memory let go.
    const [old, oldReceivers] = [requests, receivers];
    for (let arrived = receiveMessageOnPort(old); arrived; arrived = receiveMessageOnPort(old)) {
      onWriteRequest(arrived.message as WriteRequest, oldReceivers);
    }
    old.close();
    const portReceivers = receiversForPort(oldReceivers.port + 1);
    requests = message.requests;
    receivers = portReceivers;
    requests.on("message", (request: WriteRequest) => onWriteRequest(request, portReceivers));
    return;
  }
  // Not from a decoder: nothing was left out of it.
  onWriteRequest(message, null);
});

// Decoded batches come straight from the decoder worker, not through the main thread.
{
  const firstReceivers = receivers;
  requests.on("message", (request: WriteRequest) => onWriteRequest(request, firstReceivers));
}

send({
  type: "ready",
  schemaVersion: SCHEMA_VERSION,
  migrated,
  sqliteVersion: String((db.prepare("SELECT sqlite_version()").pluck().get() as string) ?? ""),
});
void trim();
void pack();

/**
 * bench/thread-handoff: what one message between two threads costs on this machine, the unit
 * the ingest pipeline pays per request (main thread to decoder, decoder to writer, writer to
 * main thread: ingest-pipeline.ts). Three figures:
 *
 * - the time inside `postMessage` to a thread that is asleep, waiting for messages (one message
 *   every few milliseconds): the call wakes it, which on a virtual machine can cost tens of
 *   microseconds of the sender's time;
 * - the same to a thread that is busy (a burst, the receiver still handling earlier ones): no
 *   wake-up;
 * - a round trip to a sleeping thread and back, the CPU of both threads together (this
 *   process's `cpuUsage`).
 *
 * The ingest path's hand-offs are designed around the first: a thread that answers several
 * requests answers them in one message (the writer's group commit, writer-worker.ts).
 *
 *   npm run bench:thread-handoff   (BENCH_MESSAGES=2000 BENCH_GAP_MS=2 by default)
 */
import { performance } from "node:perf_hooks";
import { isMainThread, parentPort, Worker } from "node:worker_threads";
import { round } from "./measure.js";

const MESSAGES = Number(process.env.BENCH_MESSAGES ?? 2000);
/** Between two messages to the sleeping thread: long enough for it to be back asleep. */
const GAP_MS = Number(process.env.BENCH_GAP_MS ?? 2);
/** A request body's size in the metrics workload, order of magnitude: sent transferred, as bodies are. */
const BODY_BYTES = 32 * 1024;

/** Microseconds now, for the time a call takes (Node 20 has no per-thread CPU clock). */
const nowUs = (): number => performance.now() * 1000;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function main(): Promise<void> {
  const worker = new Worker(new URL(import.meta.url));
  await new Promise((resolve) => worker.once("online", resolve));
  const replies: (() => void)[] = [];
  worker.on("message", () => replies.shift()?.());

  // Made before the clock starts: allocating a body costs more than sending it.
  const bodies = () => Array.from({ length: MESSAGES }, () => Buffer.allocUnsafeSlow(BODY_BYTES).buffer);
  const post = (body: ArrayBuffer) => worker.postMessage({ body }, [body]);

  // To a sleeping thread: the call alone is timed.
  let asleepUs = 0;
  const spaced = bodies();
  for (const body of spaced) {
    await sleep(GAP_MS);
    const before = nowUs();
    post(body);
    asleepUs += nowUs() - before;
  }

  // To a busy thread: a burst; the receiver is still handling the first when the rest go.
  const burst = bodies();
  const before = nowUs();
  for (const body of burst) post(body);
  const busyUs = nowUs() - before;

  // A round trip to a sleeping thread, every thread of this process counted.
  await sleep(100);
  let roundTripUs = 0;
  for (let i = 0; i < MESSAGES / 4; i++) {
    await sleep(GAP_MS);
    const start = process.cpuUsage();
    const replied = new Promise<void>((resolve) => replies.push(resolve));
    worker.postMessage({ reply: true });
    await replied;
    const used = process.cpuUsage(start);
    roundTripUs += used.user + used.system;
  }
  await worker.terminate();

  const figures = {
    benchmark: "thread-handoff",
    messages: MESSAGES,
    bodyBytes: BODY_BYTES,
    postToSleepingUs: round(asleepUs / MESSAGES, 1),
    postToBusyUs: round(busyUs / MESSAGES, 1),
    roundTripCpuUs: round(roundTripUs / (MESSAGES / 4), 1),
  };
  console.log(
    `postMessage of a ${BODY_BYTES}-byte body, time in the call: to a sleeping thread ${figures.postToSleepingUs} µs, ` +
      `to a busy one ${figures.postToBusyUs} µs; a round trip to a sleeping thread, both threads' CPU: ${figures.roundTripCpuUs} µs`,
  );
  console.log(JSON.stringify(figures));
}

if (isMainThread) {
  await main();
} else {
  parentPort?.on("message", (message: { reply?: boolean }) => {
    if (message.reply) parentPort?.postMessage(null);
  });
}

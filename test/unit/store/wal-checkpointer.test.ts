import { execFileSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import type { Worker } from "node:worker_threads";
import { expect } from "chai";
import { WalCheckpointer } from "../../../daemon/store/wal-checkpointer.js";
import { type WalIndexCounts, WalIndexReader } from "../../../daemon/store/wal-index.js";
import { hexId, traceRequest } from "../../helpers/otlp-builders.js";
import { type TestStore, testStore } from "../../helpers/store.js";
import { tempDir } from "../../helpers/temp-dir.js";

const MiB = 1024 * 1024;
const T0 = 1_700_000_000_000_000_000n;

function counts(path: string): WalIndexCounts {
  const read = new WalIndexReader(path).counts();
  if (read === null) throw new Error("the WAL-index header was not readable");
  return read;
}

function autocheckpoint(store: TestStore): number {
  return Number(store.db.pragma("wal_autocheckpoint", { simple: true }));
}

/** A commit of a few pages: spans with a large attribute each. */
function commit(store: TestStore, n: number): void {
  store.writeTraces(
    traceRequest(
      "checkpoints",
      Array.from({ length: 4 }, (_, i) => ({
        traceId: hexId(n, 16),
        spanId: hexId(n * 4 + i, 8),
        startNs: T0 + BigInt(n * 4 + i),
        attributes: { text: `${n}`.repeat(1500) },
      })),
    ),
  );
}

/** A checkpointer whose every report fails the test: none is expected. */
function strictCheckpointer(store: TestStore, idleMs?: number): WalCheckpointer {
  const unexpected = (line: string) => {
    throw new Error(`unexpected: ${line}`);
  };
  return new WalCheckpointer(store.db, store.path, unexpected, idleMs);
}

/**
 * Commits, numbered from `first`, until the checkpointer has asked its thread to copy; answers
 * the next number. The thread starts on that ask when none runs.
 */
function commitUntilAsked(store: TestStore, checkpointer: WalCheckpointer, first: number, most = 1000): number {
  let n = first;
  while (!checkpointer.copying) {
    if (n - first > most) throw new Error("the thread was never asked to copy");
    commit(store, n++);
    checkpointer.afterCommit();
  }
  return n;
}

/** Waits until `done`, giving the checkpoint thread's replies their turn. */
async function until(done: () => boolean, what: string): Promise<void> {
  for (let waited = 0; !done(); waited += 5) {
    if (waited > 10_000) throw new Error(`not ${what} within 10 s`);
    await sleep(5);
  }
}

describe("checkpoints on their own thread (WalCheckpointer)", function () {
  this.timeout(30_000);

  it("has the thread copy the log once the threshold is reached, and starts the log over", async () => {
    // A 4 MiB cap: the automatic checkpoint waited for half a MiB of frames.
    const store = testStore(4 * MiB);
    const threshold = autocheckpoint(store);
    const checkpointer = strictCheckpointer(store);
    try {
      expect(checkpointer.threaded).to.equal(true);
      // SQLite's own checkpoint waits for twice as many now: a backstop only.
      expect(autocheckpoint(store)).to.equal(2 * threshold);
      let longest = 0;
      let longestCommit = 0;
      let restarts = 0;
      let last = counts(store.path).frames;
      for (let n = 0; n < 100; n++) {
        commit(store, n);
        const now = counts(store.path);
        longestCommit = Math.max(longestCommit, now.frames > last ? now.frames - last : now.frames);
        checkpointer.afterCommit();
        // Each copy finishes before the next commit here, so what bounds the log is plain.
        await until(() => !checkpointer.copying, "copied");
        longest = Math.max(longest, now.frames);
        if (now.frames < last) restarts++;
        last = now.frames;
      }
      expect(checkpointer.threadCheckpoints).to.be.greaterThan(2);
      expect(restarts).to.be.greaterThan(2);
      expect(longest).to.be.at.most(threshold + longestCommit);
    } finally {
      await checkpointer.stop();
      store.close();
    }
  });

  it("copies, at the writer's next commit after the thread's copy, what was committed meanwhile", async () => {
    const store = testStore(4 * MiB);
    const checkpointer = strictCheckpointer(store);
    try {
      let n = 0;
      for (let round = 0; round < 3; round++) {
        n = commitUntilAsked(store, checkpointer, n);
        // Commits go on while the thread copies; the last one after it has.
        for (let more = 0; more < 3; more++) commit(store, n++);
        await until(() => !checkpointer.copying, "copied");
        commit(store, n++);
        checkpointer.afterCommit();
        // Every frame copied: the next transaction starts the log over. A checkpoint on
        // another connection alone would leave this commit's frames, and the log would grow.
        const now = counts(store.path);
        expect(now.backfilled, `round ${round}`).to.equal(now.frames);
        // Started over: nothing of the new log copied yet (without a restart, all of the old was).
        commit(store, n++);
        expect(counts(store.path).backfilled, `round ${round}`).to.equal(0);
      }
      expect(checkpointer.threadCheckpoints).to.equal(3);
    } finally {
      await checkpointer.stop();
      store.close();
    }
  });

  it("waits at stop, a second stop too, for a copy under way, so the writer's truncating checkpoint at close is not refused", async () => {
    // No cap: the thread is asked at 32 MiB of log, whose copy and syncs outlast the stop.
    const store = testStore();
    const checkpointer = strictCheckpointer(store);
    try {
      let n = 0;
      const askToCopy = () => {
        n = commitUntilAsked(store, checkpointer, n, 20_000);
      };
      // A first copy, so the thread is up (it starts when a checkpoint is first due) and stays.
      askToCopy();
      await until(() => !checkpointer.copying, "copied");
      commit(store, n++);
      checkpointer.afterCommit();
      askToCopy();
      await sleep(10); // the thread under way
      // As when the store is lost and then the writer closes: the second stop waits as well.
      void checkpointer.stop();
      await checkpointer.stop();
      const [result] = store.db.pragma("wal_checkpoint(TRUNCATE)") as { busy: bigint; log: bigint }[];
      expect([Number(result?.busy), Number(result?.log)]).to.deep.equal([0, 0]);
    } finally {
      await checkpointer.stop();
      store.close();
    }
  });

  it("gives checkpoints back to the writer, saying why, when its thread stops", async () => {
    const store = testStore(4 * MiB);
    const threshold = autocheckpoint(store);
    const said: string[] = [];
    const checkpointer = new WalCheckpointer(store.db, store.path, (line) => said.push(line));
    try {
      // The thread starts when first asked to copy.
      commitUntilAsked(store, checkpointer, 0);
      // The thread ending as if it had crashed.
      await (checkpointer as unknown as { worker: Worker }).worker.terminate();
      await until(() => !checkpointer.threaded, "back to the writer");
      expect(autocheckpoint(store)).to.equal(threshold);
      expect(said).to.have.length(1);
      expect(said[0]).to.match(/checkpoint thread exited .*the writer checkpoints the write-ahead log itself/);
      // Commits go on, and SQLite's own checkpoint keeps the log short again.
      for (let n = 0; n < 200; n++) {
        commit(store, n);
        checkpointer.afterCommit();
      }
      expect(counts(store.path).frames).to.be.lessThan(2 * threshold);
    } finally {
      await checkpointer.stop();
      store.close();
    }
  });

  it("starts its thread only when a checkpoint is due, ends it once idle, and starts another when one is due again", async () => {
    const store = testStore(4 * MiB);
    const threshold = autocheckpoint(store);
    const idleMs = 300;
    const checkpointer = strictCheckpointer(store, idleMs);
    try {
      let n = 0;
      // Commits below the threshold: no thread, and none of its memory.
      commit(store, n++);
      checkpointer.afterCommit();
      expect(checkpointer.running).to.equal(false);
      for (let round = 1; round <= 2; round++) {
        n = commitUntilAsked(store, checkpointer, n);
        expect(checkpointer.running, `round ${round}`).to.equal(true);
        await until(() => !checkpointer.copying, "copied");
        commit(store, n++);
        checkpointer.afterCommit();
        // Nothing due for the idle time: the thread ends, and checkpoints still go to a thread.
        await until(() => !checkpointer.running, "ended when idle");
        expect(checkpointer.threaded, `round ${round}`).to.equal(true);
        expect([checkpointer.threadsStarted, checkpointer.threadCheckpoints], `round ${round}`).to.deep.equal([
          round,
          round,
        ]);
        // SQLite's own checkpoint still waits for twice the frames while no thread runs.
        expect(autocheckpoint(store), `round ${round}`).to.equal(2 * threshold);
      }
    } finally {
      await checkpointer.stop();
      store.close();
    }
  });

  it("keeps its thread while checkpoints are due more often than the idle time", async () => {
    const store = testStore(4 * MiB);
    const idleMs = 1_000;
    const checkpointer = strictCheckpointer(store, idleMs);
    try {
      // Checkpoints due every few milliseconds for several idle times: the idle time counts
      // from the last checkpoint, not the first.
      const started = Date.now();
      for (let n = 0; Date.now() - started < 3 * idleMs || checkpointer.threadCheckpoints < 4; n++) {
        if (n > 20_000) throw new Error("fewer than four checkpoints");
        commit(store, n);
        checkpointer.afterCommit();
        await sleep(1);
      }
      expect(checkpointer.threadsStarted).to.equal(1);
    } finally {
      await checkpointer.stop();
      store.close();
    }
  });

  it("holds its caller's event loop open until its thread has ended, so an awaited stop resolves", () => {
    // In a process with nothing else to do once the copy is done (as the benches' raw ceilings
    // are): the thread itself must keep that process alive until it has ended.
    const module = (path: string) => JSON.stringify(new URL(path, import.meta.url).href);
    const script = `
      const { WalCheckpointer } = await import(${module("../../../daemon/store/wal-checkpointer.js")});
      const { testStore } = await import(${module("../../helpers/store.js")});
      const { hexId, traceRequest } = await import(${module("../../helpers/otlp-builders.js")});
      const store = testStore(4 * 1024 * 1024);
      const checkpointer = new WalCheckpointer(store.db, store.path, (line) => { throw new Error(line); });
      for (let n = 0; !checkpointer.copying; n++) {
        const spans = [0, 1, 2, 3].map((i) => ({ traceId: hexId(n, 16), spanId: hexId(n * 4 + i, 8), startNs: ${T0}n + BigInt(n * 4 + i), attributes: { text: String(n).repeat(1500) } }));
        store.writeTraces(traceRequest("checkpoints", spans));
        checkpointer.afterCommit();
      }
      while (checkpointer.copying) await new Promise((resolve) => setTimeout(resolve, 5));
      await checkpointer.stop();
      store.close();
      console.log("stopped");
    `;
    // A file, not --eval: a worker started by an evaluated script inherits its flags and fails.
    const dir = tempDir();
    try {
      const file = join(dir.path, "stop.mjs");
      writeFileSync(file, script);
      // Its store's directory in this one (TMPDIR), removed below whether or not the child ends well.
      const out = execFileSync(process.execPath, [file], {
        encoding: "utf8",
        env: { ...process.env, TMPDIR: dir.path },
      });
      expect(out.trim()).to.equal("stopped");
    } finally {
      dir.cleanup();
    }
  });

  it("leaves the automatic checkpoint as it was once stopped", async () => {
    const store = testStore(4 * MiB);
    try {
      const threshold = autocheckpoint(store);
      const checkpointer = new WalCheckpointer(store.db, store.path, () => {});
      await checkpointer.stop();
      expect(checkpointer.threaded).to.equal(false);
      expect(autocheckpoint(store)).to.equal(threshold);
    } finally {
      store.close();
    }
  });
});

import { join } from "node:path";
import type { Worker } from "node:worker_threads";
import { expect } from "chai";
import { IngestPipeline } from "../../daemon/ingest/ingest-pipeline.js";
import { StorageError } from "../../daemon/store/store-errors.js";
import { hexId, traceRequest } from "../helpers/otlp-builders.js";
import { tempDir } from "../helpers/temp-dir.js";

const NOW = BigInt(Date.now()) * 1_000_000n;
const MiB = 1024 * 1024;

function body(n: number): Buffer {
  return Buffer.from(
    JSON.stringify(traceRequest("pipeline", [{ traceId: hexId(n, 16), spanId: hexId(n, 8), startNs: NOW }])),
  );
}

/** Stops the pipeline's current decoder thread as an out-of-memory error or a crash would. */
async function loseDecoder(pipeline: IngestPipeline): Promise<void> {
  await (pipeline as unknown as { decoder: Worker }).decoder.terminate();
  // The pipeline hears of the exit in a later turn of the event loop.
  await new Promise((resolve) => setImmediate(resolve));
}

describe("ingest pipeline threads (real decoder and writer, in process)", function () {
  this.timeout(20_000);
  let dir: ReturnType<typeof tempDir>;
  let pipeline: IngestPipeline;

  beforeEach(async () => {
    dir = tempDir();
    pipeline = new IngestPipeline(
      {
        dbPath: join(dir.path, "t.sqlite"),
        retention: { maxAgeMs: 365 * 86_400_000, maxBytes: 0, batchRows: 2000 },
        retentionIntervalMs: 60_000,
      },
      16 * MiB,
    );
    await pipeline.ready;
  });
  afterEach(async () => {
    await pipeline.close();
    dir.cleanup();
  });

  it("replaces a decoder that stops, reports writes failing until the next one succeeds", async () => {
    expect(await pipeline.ingest("traces", "json", body(1), NOW)).to.deep.equal({
      accepted: 1,
      inserted: 1,
      rejected: null,
    });
    await loseDecoder(pipeline);
    expect(pipeline.writes.snapshot()).to.include({ ok: false });
    expect(pipeline.writes.snapshot().lastError).to.match(/the decoder stopped/);

    expect(await pipeline.ingest("traces", "json", body(2), NOW)).to.deep.equal({
      accepted: 1,
      inserted: 1,
      rejected: null,
    });
    expect(pipeline.writes.snapshot()).to.include({ ok: true });
    // The first span is stored once: a resend is recognized by the new decoder's writes too.
    expect(await pipeline.ingest("traces", "json", body(1), NOW)).to.deep.equal({
      accepted: 1,
      inserted: 0,
      rejected: null,
    });
  });

  it("answers the requests in flight when the decoder stops with a storage error", async () => {
    const inFlight = pipeline.ingest("traces", "json", body(3), NOW);
    const lost = loseDecoder(pipeline);
    const outcome = await inFlight.then(
      (result) => result,
      (error: Error) => error,
    );
    await lost;
    // It either made it to the writer first, or is refused: never left unanswered.
    if (outcome instanceof Error) {
      expect(outcome).to.be.instanceOf(StorageError);
      expect(outcome.message).to.match(/the decoder stopped/);
    } else {
      expect(outcome).to.deep.equal({ accepted: 1, inserted: 1, rejected: null });
    }
    expect(await pipeline.ingest("traces", "json", body(4), NOW)).to.deep.equal({
      accepted: 1,
      inserted: 1,
      rejected: null,
    });
  });

  it("gives up after the decoder stops four times within a minute: writes fail until a restart", async () => {
    for (let i = 0; i < 3; i++) {
      await loseDecoder(pipeline);
      expect(await pipeline.ingest("traces", "json", body(10 + i), NOW)).to.deep.equal({
        accepted: 1,
        inserted: 1,
        rejected: null,
      });
    }
    await loseDecoder(pipeline);
    let refused: unknown = null;
    await pipeline.ingest("traces", "json", body(20), NOW).catch((error) => {
      refused = error;
    });
    expect(refused).to.be.instanceOf(StorageError);
    expect((refused as Error).message).to.match(/the decoder stopped/);
  });
});

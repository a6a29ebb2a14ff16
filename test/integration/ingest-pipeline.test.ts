import { join } from "node:path";
import type { Worker } from "node:worker_threads";
import Database from "better-sqlite3";
import { expect } from "chai";
import { ingestErrorOf, toGrpc, toHttp } from "../../daemon/ingest/ingest-errors.js";
import { IngestPipeline } from "../../daemon/ingest/ingest-pipeline.js";
import { StorageError } from "../../daemon/store/store-errors.js";
import { hexId, traceRequest } from "../helpers/otlp-builders.js";
import { encodeMetrics } from "../helpers/otlp-metrics-protobuf.js";
import { tempDir } from "../helpers/temp-dir.js";

const NOW = BigInt(Date.now()) * 1_000_000n;
const MiB = 1024 * 1024;

function body(n: number): Buffer {
  return Buffer.from(
    JSON.stringify(traceRequest("pipeline", [{ traceId: hexId(n, 16), spanId: hexId(n, 8), startNs: NOW }])),
  );
}

/**
 * A protobuf request of one gauge point per series `prefix-N`, worth N, at `NOW + offset` µs:
 * a point stored under another series' attributes would show in its value.
 */
function gauges(prefix: string, series: number[], offset: number): Buffer {
  const dataPoints = series.map((n) => ({
    attributes: [{ key: "series", value: { stringValue: `${prefix}-${n}` } }],
    timeUnixNano: String(NOW + BigInt(offset * 1000 + n)),
    asDouble: n,
  }));
  const resource = { attributes: [{ key: "service.name", value: { stringValue: "pipeline" } }] };
  return encodeMetrics({
    resourceMetrics: [
      { resource, scopeMetrics: [{ scope: { name: "t" }, metrics: [{ name: "g", gauge: { dataPoints } }] }] },
    ],
  });
}

const range = (from: number, to: number) => Array.from({ length: to - from }, (_, i) => from + i);

/** Stops the pipeline's current decoder thread as an out-of-memory error or a crash would. */
async function loseDecoder(pipeline: IngestPipeline): Promise<void> {
  await (pipeline as unknown as { decoder: Worker }).decoder.terminate();
  // The pipeline hears of the exit in a later turn of the event loop.
  await new Promise((resolve) => setImmediate(resolve));
}

/** What a client is told about a refused request, over HTTP and gRPC. */
function answers(error: unknown) {
  const failure = ingestErrorOf(error, "traces");
  if (!failure) throw new Error(`not an ingest failure: ${String(error)}`);
  const http = toHttp(failure);
  const grpc = toGrpc(failure);
  return {
    status: http.status,
    retryAfter: http.headers["Retry-After"],
    grpc: grpc.name,
    retryDelay: grpc.retryDelaySeconds,
  };
}

function refusal(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    (result) => {
      throw new Error(`the request was accepted: ${JSON.stringify(result)}`);
    },
    (error: unknown) => error,
  );
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
      // A new decoder takes over: the client is told to try again.
      expect(answers(outcome)).to.include({ status: 503, grpc: "UNAVAILABLE" });
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
    // No decoder comes back until a restart: a retry would fail the same way.
    expect(answers(refused)).to.deep.equal({ status: 500, retryAfter: undefined, grpc: "INTERNAL", retryDelay: null });
  });

  it("stores every metric point under its own series across a decoder replaced with requests in flight", async () => {
    const outcomes: string[] = [];
    const send = (prefix: string, series: number[], offset: number) =>
      pipeline.ingest("metrics", "protobuf", gauges(prefix, series, offset), NOW).then(
        () => "stored",
        (error: Error) => error.name,
      );
    for (let offset = 0; offset < 2; offset++) outcomes.push(await send("a", range(0, 50), offset));
    const inFlight = range(2, 30).map((offset) => send("a", range(0, 50), offset));
    await loseDecoder(pipeline);
    outcomes.push(...(await Promise.all(inFlight)));
    // The new decoder numbers its sets from 1 again, other texts first.
    for (let offset = 30; offset < 34; offset++) outcomes.push(await send("b", range(100, 160), offset));
    for (let offset = 34; offset < 37; offset++) outcomes.push(await send("a", range(0, 50), offset));
    expect(outcomes.slice(0, 2)).to.deep.equal(["stored", "stored"]);
    expect(outcomes.slice(-7)).to.deep.equal(Array(7).fill("stored"));
    await pipeline.close();
    const db = new Database(join(dir.path, "t.sqlite"), { readonly: true });
    try {
      const rows = db
        .prepare("SELECT s.attributes, p.value FROM metric_points p JOIN metric_series s ON s.id = p.series_id")
        .all() as { attributes: string; value: number }[];
      expect(rows.length).to.be.at.least(2 * 50 + 4 * 60 + 3 * 50);
      const misfiled = rows.filter(
        ({ attributes, value }) => Number(JSON.parse(attributes).series.split("-")[1]) !== value,
      );
      expect(misfiled).to.deep.equal([]);
      expect((db.prepare("SELECT count(*) AS n FROM metric_series").get() as { n: number }).n).to.equal(110);
    } finally {
      db.close();
    }
  });

  it("replaces the decoder whose batches the writer could not restore, and only that one", async () => {
    const internals = pipeline as unknown as { decoder: Worker; onWriterReply(reply: unknown): void };
    const broken = (port: number) =>
      internals.onWriterReply({
        type: "failed",
        id: -1,
        message: "restoring failed",
        transient: true,
        brokenCrossing: port,
      });
    expect(await pipeline.ingest("metrics", "protobuf", gauges("a", range(0, 5), 0), NOW)).to.include({ accepted: 5 });
    const first = internals.decoder;
    broken(0);
    await new Promise((resolve) => first.once("exit", resolve));
    await new Promise((resolve) => setImmediate(resolve));
    const second = internals.decoder;
    expect(second).not.to.equal(first);
    expect(pipeline.writes.snapshot().lastError).to.match(/restoring failed/);
    expect(await pipeline.ingest("metrics", "protobuf", gauges("a", range(0, 5), 1), NOW)).to.include({ accepted: 5 });
    // A late word about the first decoder's port leaves its replacement alone.
    broken(0);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(internals.decoder).to.equal(second);
    expect(await pipeline.ingest("metrics", "protobuf", gauges("a", range(0, 5), 2), NOW)).to.include({ accepted: 5 });
  });

  it("tells a client to retry when the collector is stopping", async () => {
    const closing = pipeline.close();
    const refused = await refusal(pipeline.ingest("traces", "json", body(30), NOW));
    await closing;
    expect((refused as Error).message).to.match(/the collector is stopping/);
    expect(answers(refused)).to.deep.equal({ status: 503, retryAfter: "1", grpc: "UNAVAILABLE", retryDelay: 1 });
  });

  it("tells a client to retry once it refuses writes (its store lock lost), those in flight too, and writes nothing more", async () => {
    // A metric point the writer holds: its journal row and the store's "held" mark are committed.
    expect(await pipeline.ingest("metrics", "protobuf", gauges("held", [1], 1), NOW)).to.include({ accepted: 1 });
    const inFlight = refusal(pipeline.ingest("traces", "json", body(34), NOW));
    // Handed to the decoder: past what refuses a request.
    await new Promise((resolve) => setImmediate(resolve));
    pipeline.refuseWrites("the lock on the store was lost");
    const refused = await refusal(pipeline.ingest("traces", "json", body(35), NOW));
    expect((refused as Error).message).to.equal("the lock on the store was lost");
    expect(answers(refused)).to.deep.equal({ status: 503, retryAfter: "1", grpc: "UNAVAILABLE", retryDelay: 1 });
    expect(pipeline.writes.snapshot().ok).to.equal(false);
    // Not acknowledged, so its sender sends it again, to the collector that holds the store now.
    expect(answers(await inFlight)).to.include({ status: 503 });
    await pipeline.close();
    // The store belongs to another collector now: this one's close wrote nothing, neither the
    // span in flight nor the rows it held, and left the journal and its mark for that one.
    const db = new Database(join(dir.path, "t.sqlite"), { readonly: true });
    try {
      expect(db.prepare("SELECT count(*) FROM spans").pluck().get()).to.equal(0);
      expect(db.prepare("SELECT count(*) FROM metric_point_journal").pluck().get()).to.equal(1);
      expect(db.prepare("SELECT count(*) FROM meta WHERE key = 'metric_rows_held'").pluck().get()).to.equal(1);
    } finally {
      db.close();
    }
  });

  it("tells a client to retry when the writer thread stops", async () => {
    await (pipeline as unknown as { writer: Worker }).writer.terminate();
    await new Promise((resolve) => setImmediate(resolve));
    const refused = await refusal(pipeline.ingest("traces", "json", body(31), NOW));
    expect((refused as Error).message).to.match(/the writer (stopped|exited)/);
    expect(answers(refused)).to.deep.equal({ status: 503, retryAfter: "1", grpc: "UNAVAILABLE", retryDelay: 1 });
  });

  it("reports a writer thread that dies once, so the collector stops instead of answering retry forever", async () => {
    const lost: string[] = [];
    pipeline.onWriterLost = (error) => lost.push(error.message);
    const inFlight = refusal(pipeline.ingest("traces", "json", body(33), NOW));
    await (pipeline as unknown as { writer: Worker }).writer.terminate();
    await new Promise((resolve) => setImmediate(resolve));
    expect(lost).to.have.length(1);
    expect(lost[0]).to.match(/the writer (stopped|exited)/);
    // The request in flight is told to retry: it reaches a restarted collector, or none.
    const refused = await inFlight;
    expect(answers(refused)).to.include({ status: 503, grpc: "UNAVAILABLE" });
  });

  it("answers each request committed with others with its own counts, and fails only the one that cannot be stored", async () => {
    const other = new Database(join(dir.path, "t.sqlite"));
    try {
      // A span named "poison" makes its transaction fail, so the writer stores the requests of
      // that transaction one by one; one whose name starts "slow" holds its transaction about a
      // second, so the requests sent after it reach the writer meanwhile and join it.
      other.exec(`
        CREATE TRIGGER poison BEFORE INSERT ON span_names WHEN NEW.name = 'poison'
        BEGIN SELECT RAISE(ABORT, 'poisoned'); END;
        CREATE TRIGGER slow BEFORE INSERT ON span_names WHEN NEW.name LIKE 'slow%'
        BEGIN SELECT count(*) FROM (WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c
          WHERE x < 6000000) SELECT x FROM c); END`);
    } finally {
      other.close();
    }
    /** Request `i`: (i % 4) + 1 spans of its own, named `name`. */
    const spans = (i: number, name = "op") =>
      Buffer.from(
        JSON.stringify(
          traceRequest(
            "pipeline",
            Array.from({ length: (i % 4) + 1 }, (_, k) => ({
              traceId: hexId(1000 + i, 16),
              spanId: hexId(1000 * i + k + 1, 8),
              startNs: NOW,
              name,
            })),
          ),
        ),
      );
    // Thirty requests and a resend of the first, behind a slow one: each answered with its own counts.
    const slow = pipeline.ingest("traces", "json", spans(500, "slow"), NOW);
    const together = await Promise.all([
      ...Array.from({ length: 30 }, (_, i) => pipeline.ingest("traces", "json", spans(i), NOW)),
      pipeline.ingest("traces", "json", spans(0), NOW),
    ]);
    expect(await slow).to.deep.equal({ accepted: 1, inserted: 1, rejected: null });
    for (const [i, result] of together.entries()) {
      expect(result, `request ${i}`).to.deep.include({ accepted: ((i % 30) % 4) + 1, rejected: null });
    }
    const inserted = together.map((result) => result.inserted);
    // The first request and its resend: one of them stored the span, the other found it stored.
    expect([inserted[0], inserted[30]].sort()).to.deep.equal([0, 1]);
    expect(inserted.slice(1, 30)).to.deep.equal(Array.from({ length: 29 }, (_, k) => ((k + 1) % 4) + 1));
    // Thirty more with one that cannot be stored among them: only that one fails.
    const slowAgain = pipeline.ingest("traces", "json", spans(600, "slow again"), NOW);
    const poisoned = await Promise.all(
      Array.from({ length: 30 }, (_, i) =>
        i === 17
          ? refusal(pipeline.ingest("traces", "json", spans(100 + i, "poison"), NOW))
          : pipeline.ingest("traces", "json", spans(100 + i), NOW),
      ),
    );
    expect(await slowAgain).to.deep.equal({ accepted: 1, inserted: 1, rejected: null });
    for (const [i, result] of poisoned.entries()) {
      if (i === 17) {
        expect(result).to.be.instanceOf(StorageError);
        expect((result as Error).message).to.match(/poisoned/);
      } else {
        const count = ((100 + i) % 4) + 1;
        expect(result, `request ${100 + i}`).to.deep.equal({ accepted: count, inserted: count, rejected: null });
      }
    }
    expect(pipeline.writes.snapshot()).to.include({ ok: true });
  });

  it("tells a client to retry when another process holds the database locked, and stores the retry", async () => {
    const other = new Database(join(dir.path, "t.sqlite"));
    try {
      other.prepare("BEGIN IMMEDIATE").run();
      // The writer waits out its busy timeout (connection.ts), then gives up on this request.
      const refused = await refusal(pipeline.ingest("traces", "json", body(32), NOW));
      expect((refused as Error).message).to.match(/locked|busy/i);
      expect(answers(refused)).to.deep.equal({ status: 503, retryAfter: "1", grpc: "UNAVAILABLE", retryDelay: 1 });
      other.prepare("ROLLBACK").run();
    } finally {
      other.close();
    }
    expect(await pipeline.ingest("traces", "json", body(32), NOW)).to.deep.equal({
      accepted: 1,
      inserted: 1,
      rejected: null,
    });
  });
});

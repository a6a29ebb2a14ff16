/**
 * Crash safety: `kill -9` of obsd while clients are sending, again and again. A 2xx means the
 * data was committed, so everything acknowledged must be there after a restart, the maintained
 * counters must equal the rows, and SQLite's integrity check must pass.
 */
import { randomBytes } from "node:crypto";
import { join } from "node:path";
import Database from "better-sqlite3";
import { expect } from "chai";
import { idHex } from "../../daemon/store/stored-ids.js";
import { type CollectorProcess, startCollectorProcess } from "../helpers/collector-process.js";
import { http, postJson } from "../helpers/http.js";
import { logsRequest, traceRequest } from "../helpers/otlp-builders.js";
import { tempDir } from "../helpers/temp-dir.js";

const CYCLES = Number(process.env.OBS_CRASH_CYCLES ?? 4);
const SENDERS = 4;
const BATCH = 50;

interface Acknowledged {
  spans: Set<string>;
  logs: Set<string>;
  requests: number;
  refused: number;
}

/** Sends span and log batches until the collector goes away; records what it acknowledged. */
async function send(url: string, acked: Acknowledged): Promise<void> {
  const now = BigInt(Date.now()) * 1_000_000n;
  for (;;) {
    const traceId = randomBytes(16).toString("hex");
    const spans = Array.from({ length: BATCH }, (_, i) => ({
      traceId,
      spanId: randomBytes(8).toString("hex"),
      name: `op-${i % 5}`,
      startNs: now + BigInt(i),
      attributes: { "http.route": `/r/${i % 7}`, n: i },
    }));
    const logs = spans.map((span) => ({ timeNs: span.startNs, body: `log ${span.spanId}`, traceId }));
    try {
      const [traces, records] = await Promise.all([
        postJson(`${url}/v1/traces`, traceRequest("crash", spans)),
        postJson(`${url}/v1/logs`, logsRequest("crash", logs)),
      ]);
      acked.requests += 2;
      if (traces.status === 200) for (const span of spans) acked.spans.add(span.traceId + span.spanId);
      else acked.refused += 1;
      if (records.status === 200) for (const log of logs) acked.logs.add(log.body);
      else acked.refused += 1;
    } catch {
      return; // the collector was killed: connection refused or reset
    }
  }
}

describe("crash safety: kill -9 during sustained ingestion", function () {
  this.timeout(180_000);

  it(`keeps every acknowledged span and log through ${CYCLES} kill -9 and restarts, with an intact file`, async () => {
    const state = tempDir("obs-crash-");
    const dbPath = join(state.path, "telemetry.sqlite");
    const acked: Acknowledged = { spans: new Set(), logs: new Set(), requests: 0, refused: 0 };
    let obsd: CollectorProcess | null = null;
    try {
      for (let cycle = 0; cycle < CYCLES; cycle++) {
        obsd = await startCollectorProcess({ dbPath, stateDir: state.path });
        const before = acked.spans.size;
        const senders = Array.from({ length: SENDERS }, () => send(obsd?.url as string, acked));
        // Kill at a different point of each cycle, mid-stream.
        await new Promise((resolve) => setTimeout(resolve, 400 + cycle * 250));
        expect(await obsd.stop("SIGKILL")).to.equal(null);
        await Promise.all(senders);
        expect(acked.spans.size, `cycle ${cycle} acknowledged nothing`).to.be.greaterThan(before);
      }
      expect(acked.refused, "requests refused while running").to.equal(0);
      if (process.env.OBS_RELIABILITY_REPORT) {
        console.log(
          `      ${CYCLES} kill -9 cycles: ${acked.spans.size} spans and ${acked.logs.size} logs acknowledged`,
        );
      }

      // A last start: the file opens, and the counters it reports are the rows it holds.
      obsd = await startCollectorProcess({ dbPath, stateDir: state.path });
      const health = (await http(`${obsd.url}/api/health`)).json();
      await obsd.stop();
      obsd = null;

      const db = new Database(dbPath, { readonly: true });
      try {
        expect(db.pragma("integrity_check", { simple: true })).to.equal("ok");
        const spans = new Set(
          db
            .prepare(
              `SELECT ${idHex("t.trace_id")} || ${idHex("s.span_id")} FROM spans s JOIN traces t ON t.trace_key = s.trace_key`,
            )
            .pluck()
            .all() as string[],
        );
        // Bodies are stored as the JSON of the AnyValue's plain value: a string body as a JSON string.
        const logs = new Set(
          (db.prepare("SELECT body FROM logs").pluck().all() as string[]).map((body) => JSON.parse(body)),
        );
        const lostSpans = [...acked.spans].filter((key) => !spans.has(key));
        const lostLogs = [...acked.logs].filter((body) => !logs.has(body));
        expect(lostSpans, "acknowledged spans missing").to.deep.equal([]);
        expect(lostLogs, "acknowledged logs missing").to.deep.equal([]);
        expect(health.counts.spans).to.equal(spans.size);
        expect(health.counts.logs).to.equal(logs.size);
        expect(health.counts.traces).to.equal(Number(db.prepare("SELECT COUNT(*) FROM traces").pluck().get()));
      } finally {
        db.close();
      }
    } finally {
      await obsd?.stop("SIGKILL");
      state.cleanup();
    }
  });
});
